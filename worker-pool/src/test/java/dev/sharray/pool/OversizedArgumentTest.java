package dev.sharray.pool;

import dev.sharray.reducers.MalformedDataException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task whose argument, sent inline, is larger than its worker's heap. The worker used to die of the
 * OutOfMemoryError while reassembling the message, so the caller got a {@link WorkerCrashedException} ("exit code 1",
 * the JVM's stack trace of the error) that did not say which value was too large, or what to change.
 */
class OversizedArgumentTest {

    @Test
    @Timeout(120)
    void anArgumentTooLargeForTheWorkersHeapFailsItsTaskWithTheReasonAndThePoolGoesOn() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m").build()) {
            final List<byte[]> chunks = new ArrayList<>();
            for (int i = 0; i < 256; i++) {
                chunks.add(new byte[512 << 10]); // below maxBytes: each is copied inline into the task's message
            }
            final Throwable t = assertThrows(ExecutionException.class,
                () -> pool.submit((List<byte[]> l) -> l.size(), chunks).get(60, TimeUnit.SECONDS)).getCause();
            final RemoteTaskException remote = assertInstanceOf(RemoteTaskException.class, t);
            assertEquals(MalformedDataException.class.getName(), remote.remoteClassName());
            assertTrue(remote.remoteMessage().startsWith("cannot read the task: its message of ")
                && remote.remoteMessage().contains("does not fit in the worker's heap")
                && remote.remoteMessage().contains("larger heapSize"), remote.remoteMessage());
            final RemoteTaskException cause = assertInstanceOf(RemoteTaskException.class, remote.getCause());
            assertEquals(OutOfMemoryError.class.getName(), cause.remoteClassName());
            // the worker retires (its heap ran out) and a new one runs the next task
            assertEquals(42, pool.submit((Integer x) -> x + 1, 41).get(60, TimeUnit.SECONDS));
            assertEquals(3, pool.submit((List<byte[]> l) -> l.size(), chunks.subList(0, 3)).get(60, TimeUnit.SECONDS));
        }
    }
}
