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

/// Ed25519 (RFC 8032) from libcrypto's EVP_PKEY_ED25519: keys are the raw 32-byte forms (a private key is the
/// seed), signatures 64 bytes. Every buffer is borrowed for the call and owned by the caller; the functions keep no
/// state and may be called from any thread.

/// Makes a key pair from the system's random source; 1 on success, 0 on failure.
int microapp_ed25519_generate(uint8_t private_key[32], uint8_t public_key[32]);

/// The public key of `private_key`; 1 on success, 0 on failure.
int microapp_ed25519_public_key(const uint8_t private_key[32], uint8_t public_key[32]);

/// Signs the `count` bytes at `message`; 1 on success, 0 on failure.
int microapp_ed25519_sign(const uint8_t private_key[32], const void *message, size_t count, uint8_t signature[64]);

/// 1 when `signature` is `public_key`'s over the `count` bytes at `message`, 0 when it is not (or the key is not a
/// valid point), -1 when libcrypto could not check.
int microapp_ed25519_verify(
    const uint8_t public_key[32], const void *message, size_t count, const uint8_t signature[64]);

#endif
