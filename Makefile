# sbox: build, test, bench, fuzz, install.
# `make` builds bin/sboxd, bin/sbox-init and bin/sbox; `make SAN=1 ...` builds
# the same under ASan + UBSan into bin-san/.

PKGS     := libevent jansson sqlite3 libseccomp
DEB_PKGS := build-essential pkg-config bubblewrap libevent-dev libjansson-dev \
            libsqlite3-dev libseccomp-dev check python3 iproute2 util-linux \
            procps passwd clang libclang-rt-14-dev tinyproxy squid curl hyperfine \
            git coreutils python3-pytest python3-pytest-xdist

# Build on every core unless the caller chose (-j or -l on its command line).
ifeq ($(filter -j% j% -l% l%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

CC       ?= cc
PREFIX   ?= /usr/local
DESTDIR  ?=
VERSION  := 0.1.0
# The AppArmor profile (systemd/sbox.apparmor.in) allows user namespaces to
# this bwrap only (the one sboxd finds in PATH) and to PREFIX/bin/sboxd.
# APPARMOR=auto installs it where the system has AppArmor 4 (the release
# that restricts user namespaces and knows the `userns` rule), =yes always,
# =no never.
BWRAP    ?= $(realpath $(shell command -v bwrap 2>/dev/null))
APPARMOR ?= auto
APPARMOR_D := /etc/apparmor.d
APPARMOR_PROFILE := $(DESTDIR)$(APPARMOR_D)/sbox

ifeq ($(SAN),1)
OUT      := build-san
BIN      := bin-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
OUT      := build
BIN      := bin
SANFLAGS :=
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
# sbox and sbox-init start often (every CLI call, every session): link
# jansson statically when its archive is there, to spare the loader's work.
JANSSON_STATIC := -Wl,-Bstatic -ljansson -Wl,-Bdynamic
JANSSON_A      := $(wildcard $(shell pkg-config --variable=libdir jansson 2>/dev/null)/libjansson.a)
JANSSON_LIBS   := $(if $(JANSSON_A),$(JANSSON_STATIC),$(shell pkg-config --libs jansson 2>/dev/null))

CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I. $(PKG_CFLAGS) \
           -DSBOX_VERSION='"$(VERSION)"' -MMD -MP $(SANFLAGS)
LDFLAGS += $(SANFLAGS)

PROTOCOL_SRC := $(wildcard protocol/*.c)
POLICY_SRC   := $(wildcard policy/*.c)
STORE_SRC    := $(wildcard store/*.c)
INIT_SRC     := $(wildcard daemon/init/*.c)
DAEMON_SRC   := $(filter-out daemon/main.c $(INIT_SRC),$(wildcard daemon/*.c daemon/*/*.c))
CLIENT_SRC   := $(filter-out client/main.c,$(wildcard client/*.c))
UNIT_SRC     := $(wildcard tests/unit/test-*.c)
BENCH_SRC    := $(wildcard tests/bench/*.c)

obj = $(patsubst %.c,$(OUT)/%.o,$(1))

LIBPROTOCOL := $(OUT)/libprotocol.a
LIBPOLICY   := $(OUT)/libpolicy.a
LIBSTORE    := $(OUT)/libstore.a
LIBDAEMON   := $(OUT)/libsboxd.a
LIBCLIENT   := $(OUT)/libsbox.a
UNIT_BINS   := $(patsubst tests/unit/%.c,$(BIN)/tests/%,$(UNIT_SRC))
BENCH_BINS  := $(patsubst tests/bench/%.c,$(BIN)/bench/%,$(BENCH_SRC))
# The manual pages: one per `## `NAME` (N)` section of docs/cli.md, made
# from it into $(BIN)/man/ (never committed: a page and the reference cannot
# drift); install and uninstall take the same list.
MAN_PAGES := $(shell sed -n 's/^## `\([^`]*\)` (\([0-9]\)) *$$/\1.\2/p' docs/cli.md 2>/dev/null | tr ' ' '-')
MAN_OUT   := $(addprefix $(BIN)/man/,$(MAN_PAGES))

.PHONY: all deps test unit e2e bench fuzz install install-apparmor uninstall clean check-deps \
        man-install man-uninstall
all: check-deps $(BIN)/sboxd $(BIN)/sbox-init $(BIN)/sbox $(BIN)/sbox-bash $(BIN)/shell/bash $(UNIT_BINS) $(BENCH_BINS) \
     $(MAN_OUT)

check-deps:
	@pkg-config --exists $(PKGS) check || { \
	  echo "sbox: missing build dependencies; run 'make deps' as root, or install:"; \
	  echo "  apt-get install $(DEB_PKGS)"; exit 1; }

# Install the Debian packages sbox and its tests need (as root), or say which.
deps:
	@if [ "$$(id -u)" = 0 ]; then \
	  export DEBIAN_FRONTEND=noninteractive; \
	  missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then \
	    echo "sbox: installing:$$missing"; \
	    apt-get update -qq </dev/null && apt-get install -y -qq --no-install-recommends $$missing </dev/null >/dev/null || exit 1; \
	  else echo "sbox: all Debian packages present"; fi; \
	else \
	  missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then echo "sbox: not root; install these as root: apt-get install$$missing"; exit 1; \
	  else echo "sbox: all Debian packages present"; fi; \
	fi

$(OUT)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIBPROTOCOL): $(call obj,$(PROTOCOL_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBPOLICY): $(call obj,$(POLICY_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBSTORE): $(call obj,$(STORE_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBDAEMON): $(call obj,$(DAEMON_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBCLIENT): $(call obj,$(CLIENT_SRC))
	@rm -f $@; ar rcs $@ $^

ALL_LIBS := $(LIBDAEMON) $(LIBPOLICY) $(LIBSTORE) $(LIBPROTOCOL)

$(BIN)/sboxd: $(call obj,daemon/main.c) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# sbox-init decides with policy/guard.c (its spec: guard-spec.c) and installs
# the filters sboxd built (guard-filter.c; libseccomp maps the table's calls).
$(BIN)/sbox-init: $(call obj,$(INIT_SRC) policy/guard.c policy/guard-table.c policy/guard-spec.c \
    policy/guard-calls.c policy/guard-filter.c \
    policy/strv.c policy/exclude.c) $(LIBPROTOCOL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(shell pkg-config --libs libseccomp 2>/dev/null)

$(BIN)/sbox: $(call obj,client/main.c) $(LIBCLIENT) $(LIBPOLICY) $(LIBPROTOCOL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(JANSSON_LIBS)

# The shell links `sbox agent` points the agents at (cmd-agent.c): a path
# that names bash for CLAUDE_CODE_SHELL, a folder holding only `bash` to put
# first on PATH; run by these names sbox is `sbox shell`.
$(BIN)/sbox-bash: $(BIN)/sbox
	ln -sf sbox $@
$(BIN)/shell/bash: $(BIN)/sbox
	@mkdir -p $(dir $@)
	ln -sf ../sbox $@

# The manual pages (MAN_PAGES, from docs/cli.md) made by docs/mkman.py.
$(BIN)/man/.made: docs/cli.md docs/mkman.py
	@mkdir -p $(dir $@) && rm -f $(dir $@)*.[0-9]
	python3 docs/mkman.py docs/cli.md $(dir $@) $(VERSION) && touch $@
$(MAN_OUT): $(BIN)/man/.made
man-install: $(MAN_OUT)
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8
	for p in $(MAN_PAGES); do install -m 0644 $(BIN)/man/$$p \
	  $(DESTDIR)$(PREFIX)/share/man/man$${p##*.}/$$p || exit 1; done
man-uninstall:
	for p in $(MAN_PAGES); do rm -f $(DESTDIR)$(PREFIX)/share/man/man$${p##*.}/$$p; done

$(BIN)/tests/%: $(OUT)/tests/unit/%.o $(LIBCLIENT) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBCLIENT) $(ALL_LIBS) $(PKG_LIBS) $(CHECK_LIBS)

# The objects of unit tests and benches are made by the pattern rules only:
# keep them (make would delete them as intermediate, and the next `make`
# would build them again).
.SECONDARY: $(patsubst %.c,$(OUT)/%.o,$(UNIT_SRC) $(BENCH_SRC))

$(BIN)/bench/%: $(OUT)/tests/bench/%.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(ALL_LIBS) $(PKG_LIBS) -lpthread

# The whole test suite: Check unit suites, then the end-to-end suites as root
# and as an unprivileged user.
test: all
	@BIN=$(BIN) SAN=$(SAN) bash tests/run.sh

unit: all
	@BIN=$(BIN) SAN=$(SAN) bash tests/run.sh unit

e2e: all
	@BIN=$(BIN) SAN=$(SAN) bash tests/run.sh e2e

bench: all
	@BIN=$(BIN) bash tests/bench/run.sh

FUZZ_SECONDS ?= 60
fuzz:
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS)

install: all install-apparmor man-install
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/sbox \
	  $(DESTDIR)$(PREFIX)/lib/systemd/user $(DESTDIR)$(PREFIX)/share/sbox
	install -m 0755 $(BIN)/sboxd $(BIN)/sbox $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(BIN)/sbox-init $(DESTDIR)$(PREFIX)/libexec/sbox/
	ln -sf sbox $(DESTDIR)$(PREFIX)/bin/sbox-bash
	install -d $(DESTDIR)$(PREFIX)/libexec/sbox/shell
	ln -sf ../../../bin/sbox $(DESTDIR)$(PREFIX)/libexec/sbox/shell/bash
	sed 's|@PREFIX@|$(PREFIX)|g' systemd/sboxd.service.in > $(DESTDIR)$(PREFIX)/lib/systemd/user/sboxd.service
	install -m 0644 systemd/sboxd.socket $(DESTDIR)$(PREFIX)/lib/systemd/user/
	install -m 0644 policy/registries.default $(DESTDIR)$(PREFIX)/share/sbox/registries
	install -m 0644 policy/protected.default $(DESTDIR)$(PREFIX)/share/sbox/protected
	install -m 0644 policy/providers.default $(DESTDIR)$(PREFIX)/share/sbox/providers
	sed 's|@PREFIX@|$(PREFIX)|g' launchd/dev.sbox.sboxd.plist.in > $(DESTDIR)$(PREFIX)/share/sbox/dev.sbox.sboxd.plist
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	$(BIN)/sbox completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/sbox

# The AppArmor profile: installed where AppArmor 4 is (or APPARMOR=yes),
# loaded when root installs it into the running system; else says why not.
install-apparmor:
	@want=$(APPARMOR); \
	if [ "$$want" = auto ]; then \
	  if [ ! -d /sys/kernel/security/apparmor ] && [ ! -d $(APPARMOR_D) ]; then \
	    echo "sbox: no AppArmor here: its profile is not installed"; exit 0; fi; \
	  if [ ! -e $(APPARMOR_D)/abi/4.0 ]; then \
	    echo "sbox: AppArmor here is older than 4.0 (no $(APPARMOR_D)/abi/4.0; it neither restricts user namespaces nor knows the userns rule): its profile is not installed (APPARMOR=yes to install it anyway)"; exit 0; fi; \
	elif [ "$$want" != yes ]; then exit 0; fi; \
	if [ -z "$(BWRAP)" ]; then \
	  echo "sbox: no bwrap in PATH: the AppArmor profile is not installed (make install BWRAP=/path/to/bwrap)"; exit 1; fi; \
	install -d $(DESTDIR)$(APPARMOR_D) && \
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@BWRAP@|$(BWRAP)|g' systemd/sbox.apparmor.in > $(APPARMOR_PROFILE).tmp && \
	chmod 0644 $(APPARMOR_PROFILE).tmp && mv -f $(APPARMOR_PROFILE).tmp $(APPARMOR_PROFILE) || exit 1; \
	if [ -n "$(DESTDIR)" ]; then echo "sbox: AppArmor profile in $(APPARMOR_PROFILE) (not loaded: DESTDIR is set)"; \
	elif [ "$$(id -u)" != 0 ]; then echo "sbox: AppArmor profile in $(APPARMOR_PROFILE); load it as root: sudo apparmor_parser -r $(APPARMOR_PROFILE)"; \
	elif [ ! -d /sys/kernel/security/apparmor ] || ! command -v apparmor_parser >/dev/null 2>&1; then \
	  echo "sbox: AppArmor profile in $(APPARMOR_PROFILE) (not loaded: AppArmor is not running or apparmor_parser is missing)"; \
	else apparmor_parser -r $(APPARMOR_PROFILE) || { echo "sbox: apparmor_parser could not load $(APPARMOR_PROFILE)"; exit 1; }; \
	  echo "sbox: AppArmor profile loaded: sbox-bwrap ($(BWRAP)) and sboxd ($(PREFIX)/bin/sboxd) may make user namespaces"; fi

# Remove what install put (the same list), and sbox's own folders. First
# the installing user's sboxd (the user sudo ran as, else the caller) is
# stopped with `sbox daemon stop` (and its systemd user units), or the
# message says that one still runs; the user's own data stays
# (docs/operations.md, "Removing sbox", names the folders and the command
# that removes them).
uninstall: man-uninstall
	@sbox=$(DESTDIR)$(PREFIX)/bin/sbox; [ -x "$$sbox" ] || sbox=$$(command -v sbox || true); \
	user=$$(id -un); as=""; \
	if [ "$$(id -u)" = 0 ] && [ -n "$$SUDO_USER" ] && [ "$$SUDO_USER" != root ]; then \
	  user=$$SUDO_USER; uid=$$(id -u "$$user"); \
	  as="sudo -u $$user env XDG_RUNTIME_DIR=/run/user/$$uid"; \
	fi; \
	if command -v systemctl >/dev/null 2>&1 && [ -n "$$as$$XDG_RUNTIME_DIR" ]; then \
	  $$as systemctl --user stop sboxd.socket sboxd.service >/dev/null 2>&1 || true; \
	fi; \
	if [ -n "$$sbox" ]; then \
	  out=$$($$as "$$sbox" --no-start daemon stop 2>&1); rc=$$?; \
	  if [ $$rc = 0 ]; then echo "sbox: $$out (the sboxd of $$user)"; \
	  elif $$as "$$sbox" --no-start daemon status >/dev/null 2>&1; then \
	    echo "sbox: the sboxd of $$user still runs and could not be stopped ($$out): stop it with 'sbox daemon stop'"; \
	  else echo "sbox: no sboxd of $$user runs on its default socket"; fi; \
	fi; \
	pids=$$(pgrep -u "$$user" -x sboxd 2>/dev/null | tr '\n' ' '); \
	if [ -n "$$pids" ]; then \
	  echo "sbox: an sboxd of $$user still runs (pid $$pids), on another socket or state folder: stop it with 'sbox --socket PATH daemon stop' or kill $$pids"; \
	fi
	rm -f $(DESTDIR)$(PREFIX)/bin/sboxd $(DESTDIR)$(PREFIX)/bin/sbox \
	  $(DESTDIR)$(PREFIX)/bin/sbox-bash $(DESTDIR)$(PREFIX)/libexec/sbox/shell/bash \
	  $(DESTDIR)$(PREFIX)/libexec/sbox/sbox-init \
	  $(DESTDIR)$(PREFIX)/lib/systemd/user/sboxd.service \
	  $(DESTDIR)$(PREFIX)/lib/systemd/user/sboxd.socket \
	  $(DESTDIR)$(PREFIX)/share/sbox/dev.sbox.sboxd.plist \
	  $(DESTDIR)$(PREFIX)/share/sbox/registries \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/sbox \
	  $(DESTDIR)$(PREFIX)/share/sbox/protected \
	  $(DESTDIR)$(PREFIX)/share/sbox/providers
	@if [ -z "$(DESTDIR)" ] && [ -f $(APPARMOR_PROFILE) ] && [ "$$(id -u)" = 0 ] && \
	    grep -qs '^sbox-bwrap (' /sys/kernel/security/apparmor/profiles && \
	    command -v apparmor_parser >/dev/null 2>&1; then \
	  apparmor_parser -R $(APPARMOR_PROFILE) || echo "sbox: apparmor_parser could not unload $(APPARMOR_PROFILE)"; fi
	rm -f $(APPARMOR_PROFILE)
	rmdir $(DESTDIR)$(PREFIX)/libexec/sbox/shell 2>/dev/null || true
	rmdir $(DESTDIR)$(PREFIX)/libexec/sbox $(DESTDIR)$(PREFIX)/share/sbox 2>/dev/null || true

clean:
	rm -rf build build-san bin bin-san

-include $(shell find $(OUT) -name '*.d' 2>/dev/null)
