/*
 * shim.h: Swift-callable wrappers around BSD libedit (<histedit.h>).
 *
 * el_set, el_get and history are variadic, which Swift cannot call, so every
 * use Touchstone needs gets a fixed-signature `static inline` wrapper here.
 * Callbacks (prompt, key-bound commands) receive the EditLine and find their
 * Swift owner through EL_CLIENTDATA (ts_el_clientdata): no globals.
 *
 * This header defines functions only, never mutable state, so it is safe to
 * import from several Swift files or modules.
 */
#ifndef TOUCHSTONE_CLIBEDIT_SHIM_H
#define TOUCHSTONE_CLIBEDIT_SHIM_H

#include <histedit.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* A libedit prompt function: returns the prompt to print (must stay valid). */
typedef char *(*ts_el_prompt_fn)(EditLine *);
/* A libedit editor command bound to keys: returns one of the CC_* codes. */
typedef unsigned char (*ts_el_command_fn)(EditLine *, int);

/* ---- Process-wide standard streams (Swift 6 rejects the C globals) ---- */

static inline FILE *ts_stdin(void) { return stdin; }
static inline FILE *ts_stdout(void) { return stdout; }
static inline FILE *ts_stderr(void) { return stderr; }

/*
 * Whether `file` holds input already read from its descriptor (so the next getc does not
 * wait). glibc's FILE fields; elsewhere 0, which makes the caller flush before every read.
 */
static inline int ts_input_buffered(FILE *file) {
#ifdef __GLIBC__
    return file->_IO_read_ptr < file->_IO_read_end;
#else
    (void)file;
    return 0;
#endif
}

/* An empty prompt for callbacks that cannot find their owner (never written). */
static inline char *ts_empty_prompt(void) { return (char *)""; }

/* ---- Locale ---- */

/* True when LC_CTYPE's character set is UTF-8. */
static inline int ts_ctype_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL &&
        (strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "utf8") == 0);
}

/*
 * setlocale(LC_CTYPE, "") as libedit needs (otherwise non-ASCII input is
 * silently dropped). When the environment names no UTF-8 locale (LANG unset,
 * "C", "POSIX"), fall back to C.UTF-8 so UTF-8 still works: Swift strings are
 * UTF-8 anyway. Returns 1 when LC_CTYPE ends up UTF-8.
 */
static inline int ts_setup_utf8_ctype(void) {
    (void)setlocale(LC_CTYPE, "");
    if (ts_ctype_is_utf8()) return 1;
    if (setlocale(LC_CTYPE, "C.UTF-8") != NULL && ts_ctype_is_utf8()) return 1;
    if (setlocale(LC_CTYPE, "C.utf8") != NULL && ts_ctype_is_utf8()) return 1;
    if (setlocale(LC_CTYPE, "en_US.UTF-8") != NULL && ts_ctype_is_utf8()) return 1;
    return 0;
}

/* ---- Terminal ---- */

/* Width in columns of the terminal on fd, or 0 when unknown. */
static inline int ts_terminal_columns(int fd) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return (int)ws.ws_col;
    return 0;
}

/* ---- EditLine configuration (el_set / el_get) ---- */

static inline int ts_el_set_clientdata(EditLine *el, void *data) {
    return el_set(el, EL_CLIENTDATA, data);
}

/* The pointer stored with ts_el_set_clientdata, or NULL. */
static inline void *ts_el_clientdata(EditLine *el) {
    void *data = NULL;
    if (el_get(el, EL_CLIENTDATA, &data) != 0) return NULL;
    return data;
}

/*
 * Prompt function; characters between two `ignore` characters are printed
 * but not counted in the prompt's width (for colour escape sequences).
 */
static inline int ts_el_set_prompt(EditLine *el, ts_el_prompt_fn fn, char ignore) {
    return el_set(el, EL_PROMPT_ESC, fn, (int)ignore);
}

/* "emacs" or "vi". */
static inline int ts_el_set_editor(EditLine *el, const char *mode) {
    return el_set(el, EL_EDITOR, mode);
}

/*
 * When on, libedit installs its own handlers during el_gets for SIGTSTP,
 * SIGCONT, SIGWINCH, SIGHUP, SIGTERM, SIGQUIT, SIGINT: it restores the
 * terminal, chains to the previous disposition, and redraws after SIGCONT.
 */
static inline int ts_el_set_signal_handling(EditLine *el, int on) {
    return el_set(el, EL_SIGNAL, on);
}

/* Attach a History (history_init) so Up/Down and ^R browse it. */
static inline int ts_el_set_history(EditLine *el, History *h) {
    return el_set(el, EL_HIST, history, h);
}

/* Register a named editor command that keys can be bound to. */
static inline int ts_el_add_function(EditLine *el, const char *name,
                                     const char *help, ts_el_command_fn fn) {
    return el_set(el, EL_ADDFN, name, help, fn);
}

/* bind KEY COMMAND, e.g. ("^I", "ed-complete") or ("^C", "my-interrupt"). */
static inline int ts_el_bind(EditLine *el, const char *key, const char *command) {
    return el_set(el, EL_BIND, key, command, NULL);
}

/* setty with one or two arguments, e.g. ("-d", "-intr"). */
static inline int ts_el_setty(EditLine *el, const char *arg1, const char *arg2) {
    return el_set(el, EL_SETTY, arg1, arg2, NULL);
}

/* ---- History (history) ---- */

static inline int ts_history_set_size(History *h, int size) {
    HistEvent ev;
    return history(h, &ev, H_SETSIZE, size);
}

/* When on, an entry equal to the previous one is not added again. */
static inline int ts_history_set_unique(History *h, int on) {
    HistEvent ev;
    return history(h, &ev, H_SETUNIQUE, on);
}

/* Number of entries, or -1. */
static inline int ts_history_count(History *h) {
    HistEvent ev;
    if (history(h, &ev, H_GETSIZE) == -1) return -1;
    return ev.num;
}

static inline int ts_history_enter(History *h, const char *line) {
    HistEvent ev;
    return history(h, &ev, H_ENTER, line);
}

/* Number of entries read from path, or -1. */
static inline int ts_history_load(History *h, const char *path) {
    HistEvent ev;
    return history(h, &ev, H_LOAD, path);
}

/* Write every entry to an open stream; number written, or -1. */
static inline int ts_history_save_fp(History *h, FILE *fp) {
    HistEvent ev;
    return history(h, &ev, H_SAVE_FP, fp);
}

static inline int ts_history_clear(History *h) {
    HistEvent ev;
    return history(h, &ev, H_CLEAR);
}

#endif /* TOUCHSTONE_CLIBEDIT_SHIM_H */
