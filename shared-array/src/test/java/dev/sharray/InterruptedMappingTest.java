package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * An interrupt that lands while the JDK maps a file makes {@code FileChannel.map} throw
 * {@code ClosedByInterruptException} after the mmap succeeded, and the JDK drops its only record of the mapping. The
 * create (or open) then ran again with a new mapping, and the lost one stayed in the process, keeping its file's memory
 * after the array was deleted, until the JVM's exit: a caller interrupted now and then (an executor's
 * {@code shutdownNow()}, a cancelled {@code Future}, a pool caller's {@code get()}) left 16 MB mappings of deleted
 * arrays behind. Channels that map are uninterruptible now.
 */
class InterruptedMappingTest {

    private static List<String> deletedMappingsOf(Path folder) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
            .filter(l -> l.contains(folder.toString()) && l.endsWith("(deleted)"))
            .collect(Collectors.toList());
    }

    @Test
    void interruptsDuringCreatesLeaveNoMappingOfTheReleasedArrays() throws Exception {
        final Thread caller = Thread.currentThread();
        final AtomicBoolean stop = new AtomicBoolean();
        // an interrupt every few tens of microseconds: some land inside an mmap of almost every create
        final Thread interrupter = new Thread(() -> {
            while (!stop.get()) {
                caller.interrupt();
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(20_000, 200_000));
            }
        }, "interrupter");
        Path folder = null;
        int givenUp = 0;
        interrupter.start();
        try {
            for (int i = 0; i < 300; i++) {
                try {
                    final SharedArray a = SharedArray.create(DType.FLOAT64, 1 << 18); // 2 MiB
                    folder = a.path().getParent();
                    a.release();
                } catch (UncheckedIOException e) {
                    givenUp++; // interrupted eight times in one call: it may give up, as documented
                }
            }
        } finally {
            stop.set(true);
            while (interrupter.isAlive()) {
                try {
                    interrupter.join();
                } catch (InterruptedException e) {
                    // the interrupter's last one: cleared below
                }
            }
            Thread.interrupted();
        }
        if (folder != null) {
            // one more create and release: the kept reference-file mappings of deleted arrays go now
            SharedArray.create(DType.FLOAT64, 1).release();
            final List<String> left = deletedMappingsOf(folder);
            assertEquals(0, left.size(), "mappings of released arrays stayed (" + givenUp + " calls gave up), the first: "
                + left.subList(0, Math.min(3, left.size())));
        }
    }
}
