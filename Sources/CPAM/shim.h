/*
 * shim.h: the PAM calls and the PAM conversation of the linux.pam passcode plugin.
 *
 * libpam is not linked into the programs that carry the plugin: it is opened with dlopen the
 * first time a password is checked (ts_pam_load), so the REPL starts without libpam and its
 * dependencies, and a machine without libpam gets an error from the plugin instead of a
 * program that does not start. Every function pointer has the type the system header gives.
 *
 * The entered password travels as the conversation's appdata_ptr (a NUL-terminated buffer
 * the Swift caller owns and wipes); every echo-off prompt is answered with a strdup'd copy in
 * a calloc'd reply array, which PAM frees. Echo-on prompts (a user name) are refused: the user
 * is always given to pam_start. Functions only, no mutable state: the loaded table belongs
 * to the caller.
 */
#ifndef TOUCHSTONE_CPAM_SHIM_H
#define TOUCHSTONE_CPAM_SHIM_H

#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_dynamic_library.h"

/* The shared object opened at run time (Linux-PAM's soname). */
#define TS_PAM_LIBRARY "libpam.so.0"

/* Every libpam function the checker calls. */
#define TS_PAM_FUNCTIONS(X) \
    X(pam_start) \
    X(pam_start_confdir) \
    X(pam_authenticate) \
    X(pam_acct_mgmt) \
    X(pam_end) \
    X(pam_strerror)

/* The loaded functions, one field per function, named and typed as the function itself. */
typedef struct ts_pam {
#define TS_PAM_FIELD(name) __typeof__(name) * _Nonnull name;
    TS_PAM_FUNCTIONS(TS_PAM_FIELD)
#undef TS_PAM_FIELD
} ts_pam;

/*
 * Opens TS_PAM_LIBRARY and fills *lib (ts_dynamic_library_load). Returns 0, or -1 with a sentence in
 * error (the loader's message, or the missing function). The library stays loaded for the
 * process.
 */
static inline int ts_pam_load(ts_pam *lib, char *error, size_t capacity) {
#define TS_PAM_NAME(name) #name,
#define TS_PAM_SLOT(name) (void **)&lib->name,
    static const char *const names[] = { TS_PAM_FUNCTIONS(TS_PAM_NAME) };
    void **const slots[] = { TS_PAM_FUNCTIONS(TS_PAM_SLOT) };
#undef TS_PAM_NAME
#undef TS_PAM_SLOT
    return ts_dynamic_library_load(TS_PAM_LIBRARY, names, slots, sizeof names / sizeof names[0],
                                   "Linux-PAM 1.4 or later is needed", error, capacity);
}

/* Overwrites n bytes at p in a way the optimiser keeps. */
static inline void ts_wipe(void *p, size_t n) {
    if (p != NULL && n > 0) explicit_bzero(p, n);
}

static inline void ts_pam_free_replies(struct pam_response *replies, int n) {
    for (int i = 0; i < n; i++) {
        if (replies[i].resp != NULL) {
            ts_wipe(replies[i].resp, strlen(replies[i].resp));
            free(replies[i].resp);
        }
    }
    free(replies);
}

static inline int ts_pam_conversation(int n, const struct pam_message **messages,
                                      struct pam_response **out, void *appdata) {
    if (n <= 0 || n > PAM_MAX_NUM_MSG || messages == NULL || out == NULL) return PAM_CONV_ERR;
    const char *password = (const char *)appdata;
    struct pam_response *replies = calloc((size_t)n, sizeof(struct pam_response));
    if (replies == NULL) return PAM_BUF_ERR;
    for (int i = 0; i < n; i++) {
        switch (messages[i]->msg_style) {
        case PAM_PROMPT_ECHO_OFF:
            replies[i].resp = strdup(password != NULL ? password : "");
            if (replies[i].resp == NULL) { ts_pam_free_replies(replies, n); return PAM_BUF_ERR; }
            break;
        case PAM_ERROR_MSG:
        case PAM_TEXT_INFO:
            break;
        default: /* PAM_PROMPT_ECHO_ON and anything unknown: nothing to answer with */
            ts_pam_free_replies(replies, n);
            return PAM_CONV_ERR;
        }
    }
    *out = replies;
    return PAM_SUCCESS;
}

/*
 * pam_start (confdir NULL) or pam_start_confdir with ts_pam_conversation answering with
 * password. PAM copies the pam_conv structure, so a local one is fine.
 */
static inline int ts_pam_start(const ts_pam *lib, const char *service, const char *user,
                               const char *confdir, const char *password, pam_handle_t **handle) {
    struct pam_conv conversation = { ts_pam_conversation, (void *)password };
    if (confdir != NULL) return lib->pam_start_confdir(service, user, &conversation, confdir, handle);
    return lib->pam_start(service, user, &conversation, handle);
}

#endif /* TOUCHSTONE_CPAM_SHIM_H */
