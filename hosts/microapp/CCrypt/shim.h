// libxcrypt (Debian: libcrypt-dev): crypt_r and crypt_gensalt_rn, imported into Swift as CCrypt.
#include <crypt.h>
