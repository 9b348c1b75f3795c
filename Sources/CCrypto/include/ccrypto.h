#ifndef MICROAPP_CCRYPTO_H
#define MICROAPP_CCRYPTO_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256 from OpenSSL's libcrypto (EVP; SHA-NI where the CPU has it). One context per hash, used by one thread
/// at a time; the caller owns it and frees it with microapp_sha256_free.
typedef struct microapp_sha256 microapp_sha256;

/// A new context, ready for bytes; NULL when libcrypto could not make one.
microapp_sha256 *microapp_sha256_new(void);

/// Adds `count` bytes at `bytes` (borrowed for the call); 1 on success, 0 on failure.
int microapp_sha256_update(microapp_sha256 *context, const void *bytes, size_t count);

/// Writes the 32-byte digest to `digest` and ends the hash (no more updates); 1 on success, 0 on failure.
int microapp_sha256_final(microapp_sha256 *context, uint8_t digest[32]);

/// Frees the context (NULL is fine).
void microapp_sha256_free(microapp_sha256 *context);

#endif
