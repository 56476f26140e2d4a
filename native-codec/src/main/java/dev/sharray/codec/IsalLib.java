package dev.sharray.codec;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import dev.sharray.NativeFiles;

/**
 * JNA direct mapping of the few ISA-L ({@code libisal.so.2}) functions the ISAL backend and tests use, and
 * the addresses of its coding functions, which the backend calls through libsharraycodec's SIGBUS guard.
 */
final class IsalLib {
    private static final String FAILURE;
    /** Address of {@code ec_encode_data}, or 0. */
    static final long ENCODE_DATA;
    /** Address of {@code ec_encode_data_update}, or 0. */
    static final long ENCODE_DATA_UPDATE;

    static {
        String failure = null;
        long encode = 0;
        long update = 0;
        try {
            NativeFiles.prepareJna();
            NativeLibrary lib = load();
            Native.register(IsalLib.class, lib);
            encode = Pointer.nativeValue(lib.getFunction("ec_encode_data"));
            update = Pointer.nativeValue(lib.getFunction("ec_encode_data_update"));
        } catch (LinkageError | RuntimeException e) {
            failure = e.toString();
        }
        FAILURE = failure;
        ENCODE_DATA = failure == null ? encode : 0;
        ENCODE_DATA_UPDATE = failure == null ? update : 0;
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

    /** Unguarded: for tests that check ISA-L independently of our classes. */
    static native void ec_encode_data(int len, int k, int rows, long gftbls, long data, long coding);

    static native void gf_gen_cauchy1_matrix(byte[] a, int m, int k);
}
