#!/bin/bash
# Builds the VM test guest into IntegrationTests/vm/build (or $1):
#   kernel/vmlinux        Debian's stock kernel, uncompressed (PVH ELF: QEMU boots it directly)
#   kernel/modules/       the Bluetooth modules hci_uart needs, in load order (kernel/modules.order)
#   initramfs.cpio.gz     busybox-static + modules + h4attach/hcictl + blesensor-log and its libraries + /init
# Nothing is installed on the host: the kernel and busybox .debs are fetched with `apt-get download`
# into build/debs (a cache kept between runs) and unpacked with dpkg -x. The kernel part is redone
# only when the .deb changes; the initramfs is rebuilt every time (a few seconds).
# Usage: build-guest.sh BLESENSOR_LOG_BINARY [OUT_DIR]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BIN="${1:?usage: build-guest.sh BLESENSOR_LOG_BINARY [OUT_DIR]}"
OUT="${2:-$HERE/build}"
mkdir -p "$OUT/debs"
OUT="$(cd "$OUT" && pwd)"
cd "$OUT"

# ---- 1. the two .debs (download cache) ---------------------------------------------------------------
if ! ls debs/linux-image-*.deb >/dev/null 2>&1 || ! ls debs/busybox-static_*.deb >/dev/null 2>&1; then
    # linux-image-amd64 is a metapackage: resolve it to the concrete ABI package (linux-image-6.1.0-NN-amd64).
    # VM_KERNEL_PKG pins one for byte-for-byte reproducibility.
    KPKG="${VM_KERNEL_PKG:-$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')}"
    if [ -z "$KPKG" ]; then
        apt-get update -qq
        KPKG=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    fi
    [ -n "$KPKG" ] || { echo "build-guest: cannot resolve linux-image-amd64" >&2; exit 1; }
    (cd debs && apt-get download -q -o APT::Sandbox::User=root "$KPKG" busybox-static)
fi
KDEB=$(ls debs/linux-image-*.deb | head -1)
BBDEB=$(ls debs/busybox-static_*.deb | head -1)

# ---- 2. kernel + modules (cached per .deb and module list) ------------------------------------------------
# hci_uart: the H4 line to the host's Bumble controller; hci_vhci: a virtual controller (adapter mode
# registers one so that ours comes back under another number).
MODULES="hci_uart hci_vhci"
if [ "$(cat kernel/source 2>/dev/null)" != "$KDEB $MODULES" ]; then
    rm -rf kernel kpkg && mkdir -p kernel/modules kpkg
    dpkg -x "$KDEB" kpkg
    KVER=$(ls kpkg/lib/modules | head -1)
    MODDIR=kpkg/lib/modules/$KVER
    # The uncompressed vmlinux has the PVH entry note (CONFIG_PVH=y), so QEMU jumps straight into
    # it: under TCG that skips the bzImage real-mode setup and the XZ decompression, ~4-5 s a boot.
    # (What the kernel tree's scripts/extract-vmlinux does; Debian builds with CONFIG_KERNEL_XZ.)
    python3 - "kpkg/boot/vmlinuz-$KVER" kernel/vmlinux <<'PY'
import lzma, sys
d = open(sys.argv[1], 'rb').read()
off = d.find(b'\xfd7zXZ\x00')
assert off > 0, 'no XZ stream in vmlinuz'
open(sys.argv[2], 'wb').write(lzma.LZMADecompressor().decompress(d[off:]))
PY
    # Module dependencies without kmod: the "depends=" field of each .ko's .modinfo section.
    declare -A KO SEEN
    while IFS= read -r f; do n=$(basename "$f"); n=${n%%.ko*}; KO[$n]=$f; KO[${n//-/_}]=$f; done \
        < <(find "$MODDIR" -name '*.ko*')
    ORDER=()
    unpack() { case "$1" in *.xz) xz -dc "$1" ;; *.zst) zstd -qdc "$1" ;; *) cat "$1" ;; esac; }
    resolve() {
        local m=${1//-/_} d
        [ -n "${SEEN[$m]:-}" ] && return; SEEN[$m]=1
        [ -n "${KO[$m]:-}" ] || { echo "build-guest: module $m not found (built in?)" >&2; return; }
        for d in $(unpack "${KO[$m]}" | tr '\0' '\n' | sed -n 's/^depends=//p' | head -1 | tr ',' ' '); do
            resolve "$d"
        done
        ORDER+=("$m")
    }
    for m in $MODULES; do resolve "$m"; done
    for m in "${ORDER[@]}"; do unpack "${KO[$m]}" > "kernel/modules/$m.ko"; done
    printf '%s\n' "${ORDER[@]}" > kernel/modules.order
    echo "$KVER" > kernel/version
    echo "$KDEB $MODULES" > kernel/source
    rm -rf kpkg   # ~400 MB unpacked
fi
echo "build-guest: kernel $(cat kernel/version), modules: $(tr '\n' ' ' < kernel/modules.order)"

# ---- 3. guest tools (static C, no BlueZ needed) ----------------------------------------------------------
for p in h4attach hcictl; do
    if [ ! -x "$p" ] || [ "$HERE/src/$p.c" -nt "$p" ]; then
        gcc -static -O2 -Wall -Wextra -Werror -o "$p" "$HERE/src/$p.c"
    fi
done

# ---- 4. root filesystem + cpio ------------------------------------------------------------------------------
R=rootfs
rm -rf bbpkg $R && mkdir -p bbpkg $R/bin $R/dev $R/proc $R/sys $R/tmp $R/lib/modules
dpkg -x "$BBDEB" bbpkg
cp bbpkg/bin/busybox $R/bin/busybox
for a in $(bbpkg/bin/busybox --list); do [ "$a" = busybox ] || ln -s busybox "$R/bin/$a"; done
rm -rf bbpkg
cp h4attach hcictl $R/bin/
cp kernel/modules/*.ko $R/lib/modules/
cp kernel/modules.order $R/modules.order
cp "$BIN" $R/bin/blesensor-log
# VM_EXTRA="file ..." adds debugging tools to /bin (their libraries too, like the binary's).
for f in ${VM_EXTRA:-}; do cp "$f" $R/bin/; done
# The Swift runtime is linked in (--static-swift-stdlib); glibc, libstdc++, libbluetooth, libsqlite3
# and libcrypto stay dynamic and are copied from the host at the paths ldd reports.
for f in "$BIN" ${VM_EXTRA:-}; do
    if ldd "$f" >/dev/null 2>&1; then
        for lib in $(ldd "$f" | grep -o '/[^ ]*'); do
            mkdir -p "$R$(dirname "$lib")"; cp -L "$lib" "$R$lib"
        done
    fi
done
cp "$HERE/guest-init.sh" $R/init
chmod +x $R/init
(cd $R && find . | LC_ALL=C sort | "$OUT/$R/bin/busybox" cpio -o -H newc -R 0:0 2>/dev/null) | gzip -6 > initramfs.cpio.gz
rm -rf $R
echo "build-guest: $OUT/initramfs.cpio.gz ($(stat -c %s initramfs.cpio.gz) bytes)"
