package dev.sharray.codec;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import dev.sharray.NativeFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * JNA direct mapping of libsharraycodec (built from src/main/c into the jar's linux-x86-64/ folder).
 * Pointers travel as {@code long}: zero-copy on mapped and direct memory, and no marshalling.
 * {@link NativeFiles} finds the file (extracting it into a cache named by its content when it is inside a
 * jar); JNA only opens it by absolute path.
 */
final class NativeLib {
    /** JNA's resource prefix for this platform plus the library's file name. */
    static final String RESOURCE = "linux-x86-64/libsharraycodec.so";
    private static final String FAILURE;
    private static final Path PATH;

    static {
        String failure = null;
        Path path = null;
        if (Boolean.getBoolean("sharray.codec.disableNative")) {
            failure = "disabled by -Dsharray.codec.disableNative=true";
        } else {
            try {
                NativeFiles.prepareJna();
                path = NativeFiles.locate(NativeLib.class.getClassLoader(), RESOURCE);
                Native.register(NativeLib.class, NativeLibrary.getInstance(path.toString()));
            } catch (IOException | LinkageError | RuntimeException e) {
                failure = e.toString();
            }
        }
        FAILURE = failure;
        PATH = failure == null ? path : null;
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

    /** The library file this process loaded, or null. */
    static Path path() {
        return PATH;
    }

    static native int sc_max_level();

    static native long sc_table_size(int rows, int cols);

    static native void sc_init_tables(int rows, int cols, byte[] coeffs, long tables);

    static native void sc_dot(long len, int nsrc, int ndst, long tables, long src, long dst, int acc, int level);
}
