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
 * {@link #COUNT} (see docs/descriptor-format.md); and the magic, state and deleter words.
 */
final class RefSlots {
    static final int PID = 0;
    static final int START = 8;
    static final int COUNT = 16;
    private static final int VERSION_OFFSET = 4;
    private static final int STATE_OFFSET = 8;
    private static final int SLOT_COUNT_OFFSET = 12;
    private static final int DELETER_OFFSET = 16;
    private static final int SLOTS_IN_USE_OFFSET = 24;
    private static final int SLOTS_OFFSET = 64;
    private static final int SLOT_SIZE = 32;

    private RefSlots() {
    }

    /** @return the slot whose pid is {@code pid}, or -1 */
    static int slotOf(Path ref, long pid) {
        for (int i = 0, inUse = slotsInUse(ref); i < inUse; i++) {
            if (read(ref, i, PID) == pid) {
                return i;
            }
        }
        return -1;
    }

    /** @return how many slots have {@code pid} as their pid */
    static int slotsOf(Path ref, long pid) {
        int n = 0;
        for (int i = 0, inUse = slotsInUse(ref); i < inUse; i++) {
            n += read(ref, i, PID) == pid ? 1 : 0;
        }
        return n;
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
        writeAt(ref, offset(slot, field), ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value));
    }

    /** Writes state DELETING and names ({@code pid}, {@code start}) the deleter, as a deleter leaves the file once its CAS holds. */
    static void writeDeletion(Path ref, long pid, long start) {
        writeDeleter(ref, pid, start);
        writeState(ref, RefCountFile.DELETING);
    }

    /** Writes the deleter word: 0 for none, else the identity of ({@code pid}, {@code start}). */
    static void writeDeleter(Path ref, long pid, long start) {
        writeAt(ref, DELETER_OFFSET, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder())
            .putLong(0, pid == 0 ? 0 : ProcessWords.identity(pid, start)));
    }

    /**
     * Gives slots {@code [from, to)} to pid 1 (init: alive, from the start time recorded) with no reference, as live
     * processes in the middle of a claim keep them: no other process may take them, and they hold nothing. The
     * start before the pid: a reader that sees the pid without it takes it for a claim in progress, also left alone.
     */
    static void fillWithIdleLiveHolders(Path ref, int from, int to) {
        final long initStart = ProcessIdentity.startOf(1);
        for (int i = from; i < to; i++) {
            write(ref, i, START, initStart);
            write(ref, i, PID, 1);
        }
    }

    /** @return the slots in use: only those below it are ever claimed */
    static int slotsInUse(Path ref) {
        return (int) readAt(ref, SLOTS_IN_USE_OFFSET, 4);
    }

    static void writeSlotsInUse(Path ref, int slots) {
        writeAt(ref, SLOTS_IN_USE_OFFSET, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, slots));
    }

    /**
     * Turns the file into one of version 2 or 3, as a process of that build would have left it: one page of
     * {@value RefCountFile#INITIAL_SLOTS} slots, laid out as in this version, and no slots-in-use word.
     */
    static void makeEarlierVersion(Path ref, int version) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.WRITE)) {
            ch.truncate(4096);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        writeVersion(ref, version);
        writeAt(ref, SLOT_COUNT_OFFSET, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder())
            .putInt(0, RefCountFile.INITIAL_SLOTS));
        writeSlotsInUse(ref, 0);
    }

    /** Writes the file's version, as a process of another build would have created it. */
    static void writeVersion(Path ref, int version) {
        writeAt(ref, VERSION_OFFSET, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, version));
    }

    static void writeState(Path ref, int state) {
        writeAt(ref, STATE_OFFSET, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, state));
    }

    static int readState(Path ref) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.READ)) {
            final ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder());
            ch.read(b, STATE_OFFSET);
            return b.getInt(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the magic word: {@link RefCountFile#MAGIC} once the creator has written the header */
    static int readMagic(Path ref) {
        return (int) readAt(ref, 0, 4);
    }

    /** @return the deleter word: 0 for none, else the identity ({@link ProcessWords}) of the deleter */
    static long readDeleter(Path ref) {
        return readAt(ref, DELETER_OFFSET, 8);
    }

    private static long readAt(Path ref, long offset, int bytes) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.READ)) {
            final ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            b.limit(bytes);
            ch.read(b, offset);
            return bytes == 4 ? b.getInt(0) : b.getLong(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeAt(Path ref, long offset, ByteBuffer value) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.WRITE)) {
            ch.write(value, offset);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long offset(int slot, int field) {
        return SLOTS_OFFSET + (long) slot * SLOT_SIZE + field;
    }
}
