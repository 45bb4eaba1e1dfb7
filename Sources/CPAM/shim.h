/*
 * shim.h: the PAM conversation for the linux.pam passcode plugin.
 *
 * The entered password travels as the conversation's appdata_ptr (a NUL-terminated buffer
 * the Swift caller owns and wipes); every echo-off prompt is answered with a strdup'd copy in
 * a calloc'd reply array, which PAM frees. Echo-on prompts (a user name) are refused: the user
 * is always given to pam_start. Functions only, no mutable state.
 */
#ifndef TOUCHSTONE_CPAM_SHIM_H
#define TOUCHSTONE_CPAM_SHIM_H

#include <security/pam_appl.h>
#include <stdlib.h>
#include <string.h>

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
static inline int ts_pam_start(const char *service, const char *user, const char *confdir,
                               const char *password, pam_handle_t **handle) {
    struct pam_conv conversation = { ts_pam_conversation, (void *)password };
    if (confdir != NULL) return pam_start_confdir(service, user, &conversation, confdir, handle);
    return pam_start(service, user, &conversation, handle);
}

#endif /* TOUCHSTONE_CPAM_SHIM_H */
