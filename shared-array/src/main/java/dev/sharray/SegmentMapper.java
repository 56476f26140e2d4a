package dev.sharray;

import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * Maps files through {@code FileChannel.map(mode, offset, size, Arena)}, JDK 22's API. The implementation,
 * {@code ArenaSegmentMapper}, is compiled from {@code src/main/java22} only by a JDK 22 or later build; this
 * interface lets the rest of the code, compiled for Java 17, call it without naming JDK 22 types.
 */
interface SegmentMapper {
    /**
     * Maps {@code [0, length)} of the file read-write and shared.
     *
     * @return the region, unmapped by closing its own shared arena
     * @throws IOException when the kernel refuses the mapping
     */
    MappedRegion map(FileChannel channel, long length) throws IOException;

    /** @return the implementation on JDK 22 and later when this jar has it, else null (map through buffers) */
    static SegmentMapper find() {
        if (Runtime.version().feature() < 22) {
            return null;
        }
        try {
            // loaded by name: ~0.5 ms, against the 20 ms the buffer route's first mapping costs
            return (SegmentMapper) Class.forName("dev.sharray.ArenaSegmentMapper").getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            return null; // built on a JDK before 22: the buffer route
        } catch (ReflectiveOperationException | LinkageError e) {
            Log.get().warn("mapping through MappedByteBuffer: the JDK 22 mapper failed to load: {}", e.toString());
            return null;
        }
    }
}
