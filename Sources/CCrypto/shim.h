// OpenSSL's libcrypto (libssl-dev): AES-CCM for encrypted BTHome and MiBeacon frames.
#include <openssl/evp.h>
#include <openssl/err.h>
