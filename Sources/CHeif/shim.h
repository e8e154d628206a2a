#ifndef PETSPOT_CHEIF_SHIM_H
#define PETSPOT_CHEIF_SHIM_H

// libheif (Debian libheif-dev): decoding a HEIC upload's primary image to
// RGB pixels. Everything Swift needs imports directly; no wrappers.
#include <libheif/heif.h>

#endif
