#include "ccrypto.h"

#include <openssl/evp.h>

struct microapp_sha256 {
    EVP_MD_CTX *context;
};

microapp_sha256 *microapp_sha256_new(void) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return NULL;
    if (EVP_DigestInit_ex(context, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    microapp_sha256 *hash = OPENSSL_malloc(sizeof *hash);
    if (hash == NULL) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    hash->context = context;
    return hash;
}

int microapp_sha256_update(microapp_sha256 *hash, const void *bytes, size_t count) {
    if (count == 0) return 1;
    return EVP_DigestUpdate(hash->context, bytes, count) == 1;
}

int microapp_sha256_final(microapp_sha256 *hash, uint8_t digest[32]) {
    unsigned int length = 0;
    return EVP_DigestFinal_ex(hash->context, digest, &length) == 1 && length == 32;
}

void microapp_sha256_free(microapp_sha256 *hash) {
    if (hash == NULL) return;
    EVP_MD_CTX_free(hash->context);
    OPENSSL_free(hash);
}
