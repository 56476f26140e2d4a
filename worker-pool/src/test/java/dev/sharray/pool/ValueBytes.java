package dev.sharray.pool;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Hand-made bytes of one queued value, for tests that send what no reducer would write. */
final class ValueBytes {
    private ValueBytes() {
    }

    /**
     * @param tag   the value's tag byte
     * @param parts in order: an {@link Integer} as a little-endian int, a {@link Byte} as itself, a {@link String} as
     *              its length-prefixed UTF-8 bytes
     * @return the bytes (at most 256)
     */
    static byte[] of(int tag, Object... parts) {
        final ByteBuffer b = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) tag);
        for (Object part : parts) {
            if (part instanceof Integer i) {
                b.putInt(i);
            } else if (part instanceof Byte x) {
                b.put(x);
            } else {
                final byte[] text = ((String) part).getBytes(StandardCharsets.UTF_8);
                b.putInt(text.length).put(text);
            }
        }
        return Arrays.copyOf(b.array(), b.position());
    }
}
