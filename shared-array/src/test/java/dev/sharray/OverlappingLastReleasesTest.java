package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every segment this process opens on one array counts in one holder slot of its {@code .ref}. Two last local
 * releases of the same array on two threads overlap: the first gives the slot back after the second segment was
 * opened in it and briefly dropped to 0. An audit's three threads opening and releasing one descriptor hit it
 * within about a second: the next reference counted in a free slot, which no total sees, and another process's
 * last release deleted the array while this one held it.
 */
@ExtendWith(PrivateRoot.class)
class OverlappingLastReleasesTest {
    @AfterEach
    void clearHooks() {
        Segments.afterLastLocalReference = null;
        Segments.beforeSlotGivenBack = null;
    }

    @Test
    void aSlotIsNotGivenBackWhileAnotherSegmentOfTheArrayIsOpenHere() throws Exception {
        final SharedArray first = SharedArray.create(DType.INT64, 1024);
        final Descriptor descriptor = first.descriptor();
        try (ChildJvm other = ChildJvm.start(ArrayAgent.class, java.util.List.of())) {
            other.expect("ready");
            final String held = ArrayAgent.open(other, descriptor); // keeps the array alive through our releases
            overlapLastReleases(first, descriptor);
            other.send("release " + held); // the last holder anywhere
            assertEquals("ok", other.readLine());
        }
        assertTrue(!Files.exists(descriptor.path()), "the last release deletes the array");
    }

    private void overlapLastReleases(SharedArray first, Descriptor descriptor) throws Exception {
        final CountDownLatch firstAtSlot = new CountDownLatch(1);
        final CountDownLatch firstGoOn = new CountDownLatch(1);
        final CountDownLatch secondAtZero = new CountDownLatch(1);
        final CountDownLatch secondGoOn = new CountDownLatch(1);
        final Thread[] roles = new Thread[2];
        Segments.beforeSlotGivenBack = () -> {
            if (Thread.currentThread() == roles[0]) {
                firstAtSlot.countDown();
                await(firstGoOn);
            }
        };
        Segments.afterLastLocalReference = () -> {
            if (Thread.currentThread() == roles[1]) {
                secondAtZero.countDown();
                await(secondGoOn);
            }
        };
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        // thread 0: the last release of the first segment, held just before it gives the slot back
        roles[0] = new Thread(() -> run(first::release, failed));
        roles[0].start();
        assertTrue(firstAtSlot.await(60, TimeUnit.SECONDS));
        // a second segment opens in the same slot; its last release (thread 1) is held at 0, before it closes
        final SharedArray second = SharedArray.open(descriptor);
        roles[1] = new Thread(() -> run(second::release, failed));
        roles[1].start();
        assertTrue(secondAtZero.await(60, TimeUnit.SECONDS));
        firstGoOn.countDown();
        roles[0].join(60_000);
        // a third handle takes its reference on the open second segment
        try (SharedArray third = SharedArray.open(descriptor)) {
            secondGoOn.countDown();
            roles[1].join(60_000);
            assertEquals(null, failed.get());
            // before: 1, the other process's only: ours counted in a free slot, and its last release deleted the
            // files under this handle
            assertEquals(2, SharedArrays.totalReferences(third), "this process's reference is not in the file's total");
            assertEquals(1, RefSlots.slotsOf(Segments.refPathFor(third.path()), ProcessIdentity.PID));
        }
        assertTrue(Files.exists(descriptor.path()), "the other process holds it still");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void run(Runnable release, AtomicReference<Throwable> failed) {
        try {
            release.run();
        } catch (Throwable t) {
            failed.set(t);
        }
    }
}
