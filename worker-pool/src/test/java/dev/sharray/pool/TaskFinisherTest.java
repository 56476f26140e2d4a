package dev.sharray.pool;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TaskFinisherTest {

    @Test
    void aCancelledTaskWhoseArraysCannotBeReleasedIsUncountedAndTheFailureReported() {
        final AtomicInteger inFlight = new AtomicInteger(1);
        final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        final TaskFinisher finisher = new TaskFinisher(inFlight,
                new PrintStream(errBytes, true, StandardCharsets.UTF_8), "pool-test");
        final Task.Batch batch = new Task.Batch(1, () -> {
            throw new IllegalStateException("injected release failure");
        });
        final Task task = new Task(1, null, null, new byte[0], null, batch, -1);

        // thrown, it broke the dispatch loop that found the task cancelled (its claimed worker stayed busy) and
        // left the task counted, so close() waited for it for good
        finisher.finishUnsent(task);

        assertEquals(0, inFlight.get(), "the task is still counted in flight");
        final String err = errBytes.toString(StandardCharsets.UTF_8);
        assertTrue(err.contains("[pool-test]") && err.contains("injected release failure"), err);
    }
}
