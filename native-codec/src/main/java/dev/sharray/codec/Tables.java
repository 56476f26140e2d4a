package dev.sharray.codec;

/**
 * A rows x cols coefficient matrix expanded into whatever lookup form one engine's kernels read.
 * Built once (per codec, or per erasure pattern) and then only read, so any number of threads share it.
 */
abstract class Tables {
    final int rows;
    final int cols;

    Tables(int rows, int cols) {
        this.rows = rows;
        this.cols = cols;
    }

    /** @return the bytes its lookup tables take (native memory, or the Java heap for the JAVA backend) */
    abstract long bytes();

    /**
     * Frees native tables now rather than when the garbage collector finds them unreachable; afterwards they
     * must not be used. Idempotent; nothing to do for heap tables.
     */
    void free() {
    }
}
