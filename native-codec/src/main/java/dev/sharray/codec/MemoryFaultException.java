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

    /** @param message what faulted */
    public MemoryFaultException(String message) {
        super(message);
    }

    static MemoryFaultException inCall(Backend backend) {
        return new MemoryFaultException("shard memory faulted (SIGBUS) during a codec call on the " + backend
            + " backend, most likely a mapped file truncated under a buffer; the call's outputs are partly written");
    }

    static MemoryFaultException inChecksum() {
        return new MemoryFaultException("memory faulted (SIGBUS) while checksumming a buffer, most likely a mapped"
            + " file truncated under it");
    }
}
