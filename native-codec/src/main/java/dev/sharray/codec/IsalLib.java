package dev.sharray.codec;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import dev.sharray.NativeFiles;

/** JNA direct mapping of the few ISA-L ({@code libisal.so.2}) functions the ISAL backend and tests use. */
final class IsalLib {
    private static final String FAILURE;

    static {
        String failure = null;
        try {
            NativeFiles.prepareJna();
            Native.register(IsalLib.class, load());
        } catch (LinkageError | RuntimeException e) {
            failure = e.toString();
        }
        FAILURE = failure;
    }

    private IsalLib() {
    }

    private static NativeLibrary load() {
        try {
            // The runtime package (libisal2) ships only the versioned name; libisal.so needs the -dev package.
            return NativeLibrary.getInstance("libisal.so.2");
        } catch (UnsatisfiedLinkError e) {
            return NativeLibrary.getInstance("isal");
        }
    }

    static boolean available() {
        return FAILURE == null;
    }

    /** Why ISA-L did not load, or null. */
    static String failure() {
        return FAILURE;
    }

    static native void ec_init_tables(int k, int rows, byte[] a, long gftbls);

    static native void ec_encode_data(int len, int k, int rows, long gftbls, long data, long coding);

    static native void ec_encode_data_update(int len, int k, int rows, int vecI, long gftbls, long data, long coding);

    static native void gf_gen_cauchy1_matrix(byte[] a, int m, int k);
}
