package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Creating and opening arrays on an interrupted thread (one an {@code ExecutorService.shutdownNow()} or a cancelled
 * {@code Future} interrupted). They map files through channels that an interrupt closes, so every such call failed
 * with "cannot create an array in ...: null" (a {@code ClosedByInterruptException}). They are short and wait for
 * nobody: they now succeed, and the thread's interrupt is still set afterwards for the code that looks at it.
 */
class InterruptedThreadTest {

    @AfterEach
    void clear() {
        SharedArray.afterResolve = null;
        Thread.interrupted();
    }

    @Test
    void anInterruptedThreadCreatesArraysOfEitherBackingAndKeepsItsInterrupt() {
        Thread.currentThread().interrupt();
        try (SharedArray small = SharedArray.create(DType.FLOAT64, 1000);
             SharedArray chronicle = SharedArray.builder(DType.INT32, 1000).backing(Backing.MAPPED_FILE).create();
             SharedArray copy = HeapArray.of(new double[] {1.5, 2.5}, 2).toShared()) {
            small.setDouble(4.0, 999);
            chronicle.setInt(7, 3);
            assertEquals(4.0, small.sum());
            assertEquals(7.0, chronicle.sum());
            assertEquals(4.0, copy.sum());
            assertTrue(Thread.currentThread().isInterrupted(), "the caller's interrupt is kept");
        }
    }

    @Test
    void anInterruptedThreadOpensAnotherProcesssArrayAlsoWhenTheInterruptComesDuringTheOpen() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            owner.send("create FLOAT64 100");
            final Descriptor d = Descriptor.fromBytes(HexFormat.of().parseHex(owner.expect("desc ")));

            Thread.currentThread().interrupt();
            try (SharedArray a = SharedArray.open(d)) {
                assertEquals(100, a.size());
                assertTrue(Thread.currentThread().isInterrupted());
            }
            Thread.interrupted();
            // interrupted after the open began, before it maps the file: the open starts again
            SharedArray.afterResolve = real -> {
                SharedArray.afterResolve = null;
                Thread.currentThread().interrupt();
            };
            try (SharedArray a = SharedArray.open(d)) {
                a.setDouble(2.0, 5);
                assertEquals(2.0, a.sum());
                assertTrue(Thread.currentThread().isInterrupted());
            }
            Thread.currentThread().interrupt();
            try (SharedArray a = SharedArray.openNpy(d.path())) {
                assertEquals(2.0, a.sum(), "the write through the earlier handle is in the file");
                assertTrue(Thread.currentThread().isInterrupted());
            }
            Thread.interrupted();
            try (SharedArray a = SharedArray.open(d)) {
                assertEquals(2, SharedArrays.totalReferences(a), "the owner's and this one: none left by a cut-short open");
            }
        }
    }

    /**
     * A call that interrupts keep cutting short gives up after a few attempts, as before; it failed with
     * "cannot map ...: null" (a ClosedByInterruptException has no message), and now says it was interrupted.
     */
    @Test
    void anOpenThatInterruptsKeepCuttingShortSaysSoAndLeavesNoReference() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            final Descriptor d = ArrayAgent.create(owner, "FLOAT64 100");
            SharedArray.afterResolve = real -> Thread.currentThread().interrupt(); // every attempt
            final java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
                () -> SharedArray.open(d));
            SharedArray.afterResolve = null;
            assertTrue(Thread.interrupted(), "the caller's interrupt is kept");
            assertFalse(e.getMessage().contains("null"), e.getMessage());
            assertTrue(e.getMessage().contains("interrupted 8 times"), e.getMessage());
            try (SharedArray a = SharedArray.open(d)) {
                assertEquals(2, SharedArrays.totalReferences(a), "the owner's and this one: none left by the failed open");
            }
        }
    }
}
