package dev.sharray.pool;

import dev.sharray.reducers.ArraySharing;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueWriter;
import org.agrona.ExpandableArrayBuffer;

/** Encodes task arguments through the reducers; one per submitting thread, its buffer reused across submits. */
final class ArgumentEncoder {
    private ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
    private final ValueWriter writer;

    ArgumentEncoder(Reducers reducers) {
        this.writer = new ValueWriter(reducers);
    }

    /** @return {@code value}'s bytes; arrays it holds are shared through {@code sharing} */
    byte[] encode(Object value, ArraySharing sharing) {
        writer.wrap(buffer, 0, sharing);
        writer.writeValue(value);
        final byte[] bytes = new byte[writer.position()];
        buffer.getBytes(0, bytes);
        buffer = ScratchBuffers.trimmed(buffer, 256);
        writer.wrap(buffer, 0, null); // nor may the writer keep a dropped buffer (or the call's sharing)
        return bytes;
    }
}
