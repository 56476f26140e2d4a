package dev.sharray.codec;

import com.sun.jna.Native;
import com.sun.jna.Platform;
import dev.sharray.NativeFiles;

/** The C library's memcmp, to compare native memory without copying it onto the heap. */
final class Libc {
    static {
        NativeFiles.prepareJna();
        Native.register(Libc.class, Platform.C_LIBRARY_NAME);
    }

    private Libc() {
    }

    static native int memcmp(long a, long b, long n);
}
