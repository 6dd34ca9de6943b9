#pragma once
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>

/* An HMAC-SHA256 context keyed once, to be copied (EVP_MAC_CTX_dup) for each message: the one-shot HMAC() fetches
   the algorithm and sets the key up on every call. NULL when OpenSSL cannot make it. */
static inline EVP_MAC_CTX *sluice_hmac_sha256_keyed(const unsigned char *key, size_t length) {
    static const unsigned char empty = 0;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (context == NULL) return NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_init(context, length > 0 ? key : &empty, length, params) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}
