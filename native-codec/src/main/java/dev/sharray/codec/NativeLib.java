package dev.sharray.codec;

import com.sun.jna.Native;

/**
 * JNA direct mapping of libsharraycodec (built from src/main/c into the jar's linux-x86-64/ folder).
 * Pointers travel as {@code long}: zero-copy on mapped and direct memory, and no marshalling.
 */
final class NativeLib {
    private static final String FAILURE;

    static {
        String failure = null;
        if (Boolean.getBoolean("sharray.codec.disableNative")) {
            failure = "disabled by -Dsharray.codec.disableNative=true";
        } else {
            try {
                Native.register(NativeLib.class, "sharraycodec");
            } catch (LinkageError | RuntimeException e) {
                failure = e.toString();
            }
        }
        FAILURE = failure;
    }

    private NativeLib() {
    }

    static boolean available() {
        return FAILURE == null;
    }

    /** Why the library did not load, or null. */
    static String failure() {
        return FAILURE;
    }

    static native int sc_max_level();

    static native long sc_table_size(int rows, int cols);

    static native void sc_init_tables(int rows, int cols, byte[] coeffs, long tables);

    static native void sc_dot(long len, int nsrc, int ndst, long tables, long src, long dst, int acc, int level);
}
