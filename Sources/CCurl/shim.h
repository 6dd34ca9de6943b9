#pragma once
// Variadic libcurl calls and cast macros made typed functions Swift can call.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

static inline CURLcode sluice_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode sluice_easy_setopt_ptr(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode sluice_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
static inline CURLcode sluice_easy_setopt_func(CURL *easy, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(easy, option, value);
}

/// For CURLOPT_PREREQFUNCTION.
static inline CURLcode sluice_easy_setopt_prereq(CURL *easy, curl_prereq_callback value) {
    return curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, value);
}

static inline CURLcode sluice_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

static inline CURLcode sluice_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

static inline CURLcode sluice_easy_getinfo_string(CURL *easy, CURLINFO info, char **value) {
    return curl_easy_getinfo(easy, info, value);
}

static inline CURLMcode sluice_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline size_t sluice_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline int sluice_pause_cont(void) { return CURLPAUSE_CONT; }
static inline long sluice_auth_basic(void) { return (long)CURLAUTH_BASIC; }
static inline long sluice_auth_digest(void) { return (long)CURLAUTH_DIGEST; }
static inline unsigned int sluice_url_default_port(void) { return CURLU_DEFAULT_PORT; }
static inline unsigned int sluice_url_urlencode(void) { return CURLU_URLENCODE; }
static inline unsigned int sluice_header_origin_server(void) { return CURLH_HEADER; }
static inline CURLcode sluice_msg_result(CURLMsg *message) { return message->data.result; }
