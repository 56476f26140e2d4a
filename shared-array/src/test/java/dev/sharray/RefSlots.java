package dev.sharray;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads and writes the holder slots of a {@code .ref} file from a test, through the file (no mapping), to put a
 * slot into a state another process would leave it in. Fields of a slot: {@link #PID}, {@link #START},
 * {@link #COUNT} (see docs/descriptor-format.md).
 */
final class RefSlots {
    static final int PID = 0;
    static final int START = 8;
    static final int COUNT = 16;
    private static final int SLOTS_OFFSET = 64;
    private static final int SLOT_SIZE = 32;

    private RefSlots() {
    }

    /** @return the slot whose pid is {@code pid}, or -1 */
    static int slotOf(Path ref, long pid) {
        for (int i = 0; i < RefCountFile.SLOTS; i++) {
            if (read(ref, i, PID) == pid) {
                return i;
            }
        }
        return -1;
    }

    static long read(Path ref, int slot, int field) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.READ)) {
            final ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            ch.read(b, offset(slot, field));
            return b.getLong(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(Path ref, int slot, int field, long value) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value), offset(slot, field));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long offset(int slot, int field) {
        return SLOTS_OFFSET + (long) slot * SLOT_SIZE + field;
    }
}
