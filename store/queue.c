/* queue.c: queue one batched record (refusal or event), flushing the full
 * queue first (above db.c's store_flush, below refusals.c and events.c). */
#include "store/queue.h"
#include "store/batch.h"
#include "store/spill.h"

#include <string.h>

/* Queue a record (takes its strings). When the queue is full, flush first;
 * if that fails, a refusal is counted in a queued one of the same row, else
 * the oldest record is dropped (counted per kind) and -1 returned (rec is
 * still queued). */
int
store_queue_push(struct store *st, struct store_batch_rec *rec,
    sbox_error *err)
{
	struct store_batch_rec *old;
	int ret = 0;

	if (st->batch_len == STORE_BATCH_MAX &&
	    store_flush(st, err) == -1) {
		if (store_batch_merge(st, rec))
			return 0;
		/* the oldest goes to the spill file, or is lost (counted) */
		old = &st->batch[st->batch_head];
		if (store_spill_push(st, old) == -1) {
			if (old->kind == STORE_BATCH_REFUSAL)
				st->dropped_refusals += old->count > 0 ?
				    old->count : 1;
			else
				st->dropped_events++;
			st->dropped++;
			ret = error_context(err, "queue and spill file full, "
			    "oldest record dropped");
		}
		store_batch_rec_free(old);
		st->batch_head = (st->batch_head + 1) % STORE_BATCH_MAX;
		st->batch_len--;
	}
	st->batch[(st->batch_head + st->batch_len) % STORE_BATCH_MAX] = *rec;
	st->batch_len++;
	return ret;
}

