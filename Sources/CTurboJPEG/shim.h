#ifndef PETSPOT_CTURBOJPEG_SHIM_H
#define PETSPOT_CTURBOJPEG_SHIM_H

// libjpeg-turbo's TurboJPEG API (Debian libturbojpeg0-dev): lossless JPEG
// transforms that drop every APPn/COM marker, and encoding decoded HEIC
// pixels. Everything Swift needs imports directly; no wrappers.
#include <turbojpeg.h>

#endif
