package dev.sharray.pool;

import dev.sharray.ChildJvm;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task's result that this JVM's heap cannot hold while reassembling its message from the ring's fragments used to
 * throw OutOfMemoryError out of every pump: the result thread logged "(going on)" about a thousand times a second,
 * the fragments of the message were lost one by one, and the task never completed (without a timeout, its caller
 * and {@code close()} waited forever). Now the rest of the message is read and dropped, and only that task fails.
 */
class OversizedResultTest {

    @Test
    void aResultTooLargeForTheParentsHeapFailsItsTaskAndThePoolGoesOn() throws Exception {
        try (ChildJvm parent = ChildJvm.start(SmallHeapParent.class, List.of("-Xmx64m"))) {
            final String big = parent.expect("big: ");
            // the result was well formed: this JVM lacked heap, which the failure's type says (it was "malformed")
            assertTrue(big.startsWith("java.lang.OutOfMemoryError: cannot read result: its message of ")
                && big.contains("does not fit in this JVM's heap"), big);
            assertEquals("42", parent.expect("next: "));
            assertEquals(0, parent.finish());
        }
    }
}
