package dev.sharray.codec;

/**
 * The memory of a shard (or of a buffer being checksummed) faulted during a call: reading or writing it raised
 * {@code SIGBUS}. The usual cause is a file truncated, by this process or another, while a buffer mapped
 * from it was in use: {@code FileChannel.map} buffers and SharedArray memory are both such buffers. The
 * call's outputs are then partly written and must not be used; the codec itself stays usable.
 *
 * <p>The NATIVE and ISAL backends and {@link Crc32c} run their native code under a guard that turns the
 * signal into this exception, thrown by the call (without the guard the JVM would end). Code that touches
 * the memory from Java (the JAVA backend, {@code update}'s copy of the new data, {@link Crc32c} without the
 * native library) gets the JVM's own {@link InternalError} instead, which the JVM may raise a little after
 * the faulting access, as {@link java.nio.MappedByteBuffer} warns.
 */
public final class MemoryFaultException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The shard whose memory faulted, -1 when not known. */
    private final int shard;
    /** The faulting address the guard reported, 0 when not known (not kept across serialization). */
    private final transient long address;

    /** @param message what faulted */
    public MemoryFaultException(String message) {
        this(message, -1, 0, null);
    }

    private MemoryFaultException(String message, int shard, long address, Throwable cause) {
        super(message, cause);
        this.shard = shard;
        this.address = address;
    }

    /**
     * @return the index of the shard (stripe row) whose memory faulted, or -1 when not known: a checksum, or
     *         an access outside the call's shards
     */
    public int shard() {
        return shard;
    }

    /** A guarded native call of this thread has just returned {@link NativeLib#FAULT}. */
    static MemoryFaultException inCall(Backend backend) {
        return new MemoryFaultException("shard memory faulted (SIGBUS) during a codec call on the " + backend
            + " backend, most likely a mapped file truncated under a buffer; the call's outputs are partly written",
            -1, NativeLib.sc_fault_address(), null);
    }

    static MemoryFaultException inChecksum() {
        return new MemoryFaultException("memory faulted (SIGBUS) while checksumming a buffer, most likely a mapped"
            + " file truncated under it", -1, NativeLib.sc_fault_address(), null);
    }

    /**
     * @param starts the address of each shard's first byte (of the range the call codes)
     * @param count  how many of {@code starts} are shards
     * @param length each shard's length in bytes
     * @return this fault, naming the shard whose range holds the faulting address (this one is the cause);
     *         this one itself when none does
     */
    MemoryFaultException locate(long[] starts, int count, long length) {
        for (int i = 0; i < count; i++) {
            if (address - starts[i] >= 0 && address - starts[i] < length) {
                return new MemoryFaultException("the memory of shard " + i + " faulted (SIGBUS) during a codec call,"
                    + " most likely its mapped file was truncated; the call's outputs are partly written", i, address, this);
            }
        }
        return this;
    }

    /**
     * @param base   the address of a contiguous stripe's first row
     * @param rows   its row count
     * @param length each row's length in bytes
     * @return this fault, naming the row whose range holds the faulting address (see {@link #locate(long[], int, long)})
     */
    MemoryFaultException locateRow(long base, int rows, long length) {
        final long offset = address - base;
        if (offset < 0 || offset >= rows * length) {
            return this;
        }
        final int row = (int) (offset / length);
        return new MemoryFaultException("the memory of stripe row " + row + " faulted (SIGBUS) during a codec call,"
            + " most likely its file was truncated; the call's outputs are partly written", row, address, this);
    }
}
