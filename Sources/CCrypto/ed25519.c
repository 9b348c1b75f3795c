#include "ccrypto.h"

#include <openssl/evp.h>

int microapp_ed25519_generate(uint8_t private_key[32], uint8_t public_key[32]) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
    if (context == NULL) return 0;
    EVP_PKEY *key = NULL;
    int ok = EVP_PKEY_keygen_init(context) == 1 && EVP_PKEY_keygen(context, &key) == 1;
    EVP_PKEY_CTX_free(context);
    if (!ok) return 0;
    size_t private_length = 32, public_length = 32;
    ok = EVP_PKEY_get_raw_private_key(key, private_key, &private_length) == 1 && private_length == 32
        && EVP_PKEY_get_raw_public_key(key, public_key, &public_length) == 1 && public_length == 32;
    EVP_PKEY_free(key);
    return ok;
}

int microapp_ed25519_public_key(const uint8_t private_key[32], uint8_t public_key[32]) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, private_key, 32);
    if (key == NULL) return 0;
    size_t length = 32;
    int ok = EVP_PKEY_get_raw_public_key(key, public_key, &length) == 1 && length == 32;
    EVP_PKEY_free(key);
    return ok;
}

int microapp_ed25519_sign(const uint8_t private_key[32], const void *message, size_t count, uint8_t signature[64]) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, private_key, 32);
    if (key == NULL) return 0;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    size_t length = 64;
    // Ed25519 hashes the message itself (no digest is named) and signs it in one call.
    int ok = context != NULL && EVP_DigestSignInit(context, NULL, NULL, NULL, key) == 1
        && EVP_DigestSign(context, signature, &length, message, count) == 1 && length == 64;
    EVP_MD_CTX_free(context);
    EVP_PKEY_free(key);
    return ok;
}

int microapp_ed25519_verify(
    const uint8_t public_key[32], const void *message, size_t count, const uint8_t signature[64]) {
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, public_key, 32);
    // A public key that is not a point on the curve verifies nothing.
    if (key == NULL) return 0;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int result = -1;
    if (context != NULL && EVP_DigestVerifyInit(context, NULL, NULL, NULL, key) == 1) {
        result = EVP_DigestVerify(context, signature, 64, message, count) == 1 ? 1 : 0;
    }
    EVP_MD_CTX_free(context);
    EVP_PKEY_free(key);
    return result;
}
