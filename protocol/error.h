/* error.h: the one error value that travels up through every layer of sbox. */
#ifndef SBOX_ERROR_H
#define SBOX_ERROR_H

#include <stdarg.h>

/* Stable error names (data.name in JSON-RPC errors). */
#define E_PARSE            "sbox.ParseError"
#define E_INVALID_REQUEST  "sbox.InvalidRequest"
#define E_TOO_LARGE        "sbox.RequestTooLarge"
#define E_METHOD_NOT_FOUND "sbox.MethodNotFound"
#define E_INVALID_PARAMS   "sbox.InvalidParams"
#define E_INTERNAL         "sbox.Internal"
#define E_PROTOCOL_VERSION "sbox.ProtocolVersion"
#define E_TOO_MANY         "sbox.TooManyRequests"
#define E_CANCELLED        "sbox.Cancelled"
#define E_SHUTTING_DOWN    "sbox.ShuttingDown"
#define E_PERMISSION       "sbox.PermissionDenied"
#define E_CONFIG           "sbox.ConfigError"
#define E_PROFILE_NOT_FOUND "sbox.ProfileNotFound"
#define E_SESSION_NOT_FOUND "sbox.SessionNotFound"
#define E_SESSION_CLOSED   "sbox.SessionClosed"
#define E_COMMAND_NOT_FOUND "sbox.CommandNotFound"
#define E_APPROVAL_NOT_FOUND "sbox.ApprovalNotFound"
#define E_SANDBOX_UNAVAILABLE "sbox.SandboxUnavailable"
#define E_SANDBOX_SETUP    "sbox.SandboxSetupFailed"
#define E_BLOCKED          "sbox.Blocked"
#define E_DENIED           "sbox.Denied"
#define E_NARROWING        "sbox.NarrowingViolation"
#define E_STORE            "sbox.StoreError"
#define E_STORE_VERSION    "sbox.StoreTooNew"
#define E_STORE_BUSY       "sbox.StoreBusy"
#define E_IO               "sbox.IoError"
#define E_NOT_FOUND        "sbox.NotFound"
#define E_LIMIT            "sbox.LimitExceeded"
#define E_RATE_LIMITED     "sbox.RateLimited"   /* too many requests at once */
#define E_UNAVAILABLE      "sbox.Unavailable"   /* client side: no daemon */

#define ERROR_NAME_MAX  64
#define ERROR_FIELD_MAX 128
#define ERROR_MSG_MAX   1024

/* An error: filled once where it happens, context prefixed on the way up. */
typedef struct sbox_error {
	int  code;                   /* JSON-RPC error code, 0 when unset */
	char name[ERROR_NAME_MAX];   /* stable name, one of the E_* above */
	char field[ERROR_FIELD_MAX]; /* offending parameter or config key, or "" */
	char message[ERROR_MSG_MAX]; /* one human-readable line */
} sbox_error;

/* Fill err with a name and a formatted message; returns -1 for `return error_set(...)`. */
int error_set(sbox_error *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same as error_set, also naming the offending field or key. */
int error_set_field(sbox_error *err, const char *name, const char *field,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Same as error_set, appending ": strerror(errnum)". */
int error_set_errno(sbox_error *err, const char *name, int errnum,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* va_list form of error_set. */
int error_setv(sbox_error *err, const char *name, const char *fmt, va_list ap);
/* Fill err with "out of memory" (E_INTERNAL); returns -1. */
int error_nomem(sbox_error *err);
/* Prefix the message with context ("ctx: message"); returns -1. */
int error_context(sbox_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Reset err to "no error". */
void error_clear(sbox_error *err);
/* True when err holds an error. */
int error_isset(const sbox_error *err);
/* The JSON-RPC code for a stable error name (-32000 for unknown names). */
int error_code_for(const char *name);

#endif
