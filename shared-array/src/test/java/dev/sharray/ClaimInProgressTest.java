package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that reclaims dead holders' slots (on a release, an open, a reaper pass) decides from two reads of a
 * slot: its start time and its count. It read the start first. A claimer in another process stores its pid (CAS),
 * then its start, then (after its own pass over the slots) adds its first reference: a reclaimer that read the
 * start just before it was stored (0) and the count just after the reference (1) judged the slot corrupt
 * ("references counted without a start time") and freed it, dropping a live holder's reference. The array was
 * then deleted under that holder, whose release went negative, and whose freed slot the next claimer reused.
 */
class ClaimInProgressTest {
    private static final int SLOTS_OFFSET = 64;
    private static final int SLOT_SIZE = 32;

    @AfterEach
    void noHook() {
        RefCountFile.betweenSlotReads = null;
    }

    @Test
    void aSlotWhoseClaimCompletesBetweenTheReclaimersReadsStaysItsHolders(@TempDir Path root) throws Exception {
        final SharedArray a = SharedArray.builder(DType.FLOAT64, 100).folder(root).create();
        final Path data = a.path();
        final Path ref = Segments.refPathFor(data);
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            final long pid = Long.parseLong(holder.expect("ready "));
            holder.send("open " + HexFormat.of().formatHex(a.descriptor().toBytes()));
            final String id = holder.expect("id ");
            final int slot = slotOf(ref, pid);
            final long start = read(ref, slot, 8);
            assertEquals(1, read(ref, slot, 16));
            // the slot as the holder's claim left it an instant after its CAS: its pid, no start yet, no reference
            write(ref, slot, 8, 0);
            write(ref, slot, 16, 0);
            // and between the reclaimer's two reads of it, the claim completes: start, then the first reference
            RefCountFile.betweenSlotReads = () -> {
                RefCountFile.betweenSlotReads = null;
                write(ref, slot, 8, start);
                write(ref, slot, 16, 1);
            };

            a.release(); // our last reference: this release checks for dead holders before it deletes

            assertTrue(Files.exists(data) && Files.exists(ref), "the array was deleted under its live holder");
            assertEquals(pid, read(ref, slot, 0), "the live holder's slot was reclaimed");
            assertEquals(1, read(ref, slot, 16));
            holder.send("release " + id);
            assertEquals("ok", holder.readLine());
            assertFalse(Files.exists(data), "the holder's release deletes it");
        }
    }

    private static int slotOf(Path ref, long pid) {
        for (int i = 0; i < RefCountFile.SLOTS; i++) {
            if (read(ref, i, 0) == pid) {
                return i;
            }
        }
        throw new AssertionError("no slot of " + pid);
    }

    private static long read(Path ref, int slot, int field) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.READ)) {
            final ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            ch.read(b, SLOTS_OFFSET + (long) slot * SLOT_SIZE + field);
            return b.getLong(0);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void write(Path ref, int slot, int field, long value) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value), SLOTS_OFFSET + (long) slot * SLOT_SIZE + field);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
