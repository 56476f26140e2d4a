package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A task that ran in time, whose answer is larger than the ring and was still arriving at its deadline because this
 * JVM read it late (the parent SIGSTOPped, or busy): it failed with {@link TaskTimeoutException} and its worker was
 * killed, while a one-record answer survived the same pause (signals review 47).
 */
class AnswerAtTheDeadlineTest {
    @Test
    void anAnswerStillArrivingAtTheDeadlineIsDelivered() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).build()) {
            final int length = 8_000_000; // eight 1 MiB rings' worth
            final CompletableFuture<Integer> answer = new CompletableFuture<>();
            pool.holdPumpLockWhile(() -> { // as a paused parent: the worker answers, nobody reads
                final CompletableFuture<String> f = pool.submit((Integer n) -> {
                    Thread.sleep(100);
                    return "x".repeat(n);
                }, length, Duration.ofMillis(1000));
                f.whenComplete((s, e) -> {
                    if (e != null) {
                        answer.completeExceptionally(e);
                    } else {
                        answer.complete(s.length());
                    }
                });
                sleep(2500);
            });
            assertEquals(length, answer.get(30, TimeUnit.SECONDS));
            assertEquals(2, pool.submit((Integer x) -> x + 1, 1).get(30, TimeUnit.SECONDS), "the worker was kept");
        }
    }

    @Test
    void aTaskThatRunsPastItsDeadlineStillTimesOut() {
        try (ProcessPool pool = ProcessPool.builder().workers(1).build()) {
            final ExecutionException e = assertThrows(ExecutionException.class, () -> pool.submit((Integer n) -> {
                Thread.sleep(60_000);
                return n;
            }, 1, Duration.ofMillis(300)).get(30, TimeUnit.SECONDS));
            assertInstanceOf(TaskTimeoutException.class, e.getCause());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
