package dev.sharray.codec;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import dev.sharray.NativeFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * JNA direct mapping of libsharraycodec (built from src/main/c into the jar's linux-x86-64/ folder).
 * Pointers travel as {@code long}: zero-copy on mapped and direct memory, and no marshalling. Every call
 * that touches shard memory runs under the library's SIGBUS guard, so a mapped file truncated under a
 * buffer fails the call ({@link MemoryFaultException}) instead of ending the JVM.
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
                int error = sc_install_fault_guard();
                if (error != 0) {
                    failure = "cannot install the SIGBUS guard: sigaction failed with errno " + error;
                }
            } catch (IOException | LinkageError | RuntimeException | OutOfMemoryError e) {
                // an OutOfMemoryError too (direct memory short while the file is checked, say): escaping this
                // initialiser it left the class unusable, so that every later codec, AUTO included, got a
                // NoClassDefFoundError; recorded, NATIVE says why and AUTO uses the Java backend
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

    /** Installs the process's SIGBUS guard (once); 0 or an errno. */
    static native int sc_install_fault_guard();

    /** @return 0, or {@link #FAULT} (outputs partly written) */
    static native int sc_dot(long len, int nsrc, int ndst, long tables, long src, long dst, int acc, int level);

    /** @return the address whose access faulted in this thread's last guarded call that returned {@link #FAULT}, 0 before any */
    static native long sc_fault_address();

    /** @return the CRC-32C value after {@code [address, address + len)} (0 .. 2^32 - 1), or {@link #FAULT} */
    static native long sc_crc32c(int value, long address, long len);

    /**
     * As {@link #sc_crc32c} on one way of computing it (0 table, 1 SSE4.2 streams, 2 AVX-512 folding), for tests;
     * -2 for a way this CPU lacks.
     */
    static native long sc_crc32c_path(int path, int value, long address, long len);

    /** @return 0 when the two ranges hold the same bytes, 1 when not, {@link #FAULT} when either faulted */
    static native int sc_differ(long a, long b, long n);

    /** ISA-L's ec_encode_data at address {@code fn}; 0 or {@link #FAULT}. */
    static native int sc_isal_encode(long fn, int len, int k, int rows, long gftbls, long data, long coding);

    /** ISA-L's ec_encode_data_update at address {@code fn}; 0 or {@link #FAULT}. */
    static native int sc_isal_update(long fn, int len, int k, int rows, int vecI, long gftbls, long data, long coding);

    /** What a guarded call returns when the memory it touched faulted (SIGBUS). */
    static final int FAULT = -1;
}
