package dev.sharray.cli;

import com.sun.jna.Pointer;
import dev.sharray.SharedArray;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Direct {@link ByteBuffer} views straight on a shared array's memory (no copy), for the codec's buffer API. */
public final class SharedMemory {
    private SharedMemory() {
    }

    /**
     * @param a      a contiguous shared array (it must stay unreleased while the buffer is used)
     * @param offset byte offset from the array's first element
     * @param len    bytes, at most 2 GiB
     * @return a little-endian direct buffer over those bytes
     */
    public static ByteBuffer bytes(SharedArray a, long offset, long len) {
        if (offset < 0 || len < 0 || offset + len > a.byteSize()) {
            throw new IndexOutOfBoundsException("bytes [" + offset + ", " + (offset + len) + ") of a " + a.byteSize()
                + "-byte array");
        }
        return new Pointer(a.address()).getByteBuffer(offset, len).order(ByteOrder.LITTLE_ENDIAN);
    }
}
