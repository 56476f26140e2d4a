package dev.sharray;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.channels.FileChannel;

/**
 * {@link SegmentMapper} on JDK 22 and later. Each region gets its own shared arena, so that closing it unmaps that
 * region only, from any thread; nothing unmaps it but that close or {@link MappedRegion#unmapReserved}.
 */
final class ArenaSegmentMapper implements SegmentMapper {
    /** For {@link SegmentMapper#find}. */
    ArenaSegmentMapper() {
    }

    @Override
    public MappedRegion map(FileChannel channel, long length) throws IOException {
        final Arena arena = Arena.ofShared();
        try {
            return new MappedRegion(channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena).address(), length,
                null, arena);
        } catch (IOException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }
}
