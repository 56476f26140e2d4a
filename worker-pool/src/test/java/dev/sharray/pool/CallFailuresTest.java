package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** How a map call's task failures become the one exception it throws. */
class CallFailuresTest {
    @Test
    void noFailureThrowsNothing() {
        assertNull(new CallFailures().first());
    }

    @Test
    void distinctLaterFailuresAreAttachedToTheFirst() {
        final CallFailures failures = new CallFailures();
        final IllegalStateException first = new IllegalStateException("bad 1");
        final IllegalStateException second = new IllegalStateException("bad 2");
        final IllegalArgumentException third = new IllegalArgumentException("bad 1"); // another type, same words
        failures.add(first);
        failures.add(second);
        failures.add(third);
        assertSame(first, failures.first());
        assertArrayEquals(new Throwable[] {second, third}, first.getSuppressed());
    }

    @Test
    void failuresAlikeOneAttachedAreCountedNotAttached() {
        final CallFailures failures = new CallFailures();
        final IllegalStateException first = new IllegalStateException("not in a sharray folder");
        failures.add(first);
        failures.add(first); // the tasks of one message may share one exception
        for (int i = 0; i < 998; i++) {
            failures.add(new IllegalStateException("not in a sharray folder"));
        }
        assertSame(first, failures.first());
        assertEquals(1, first.getSuppressed().length, Arrays.toString(first.getSuppressed()));
        final Throwable omitted = assertInstanceOf(CallFailures.OmittedTaskFailures.class, first.getSuppressed()[0]);
        assertTrue(omitted.getMessage().startsWith("999 more tasks of this call failed: each alike a failure above"),
            omitted.getMessage());
        assertEquals(0, omitted.getStackTrace().length, "a count, not a trace");
    }

    @Test
    void failuresOfTheSameWordsWithDifferentCausesAreAttached() {
        final CallFailures failures = new CallFailures();
        final RuntimeException first = new RuntimeException("task failed", new IllegalStateException("disk full"));
        final RuntimeException second = new RuntimeException("task failed", new IllegalStateException("no such row"));
        final RuntimeException third = new RuntimeException("task failed", new IllegalStateException("disk full"));
        failures.add(first);
        failures.add(second);
        failures.add(third);
        assertSame(first, failures.first());
        assertEquals(2, first.getSuppressed().length, Arrays.toString(first.getSuppressed()));
        assertSame(second, first.getSuppressed()[0]);
        assertTrue(first.getSuppressed()[1].getMessage().startsWith("1 more task of this call failed"),
            first.getSuppressed()[1].getMessage());
    }

    @Test
    void distinctFailuresPastTheCapAreCounted() {
        final CallFailures failures = new CallFailures();
        final RuntimeException first = new RuntimeException("task 0");
        failures.add(first);
        for (int i = 1; i < 100; i++) {
            failures.add(new RuntimeException("task " + i));
        }
        assertSame(first, failures.first());
        final Throwable[] suppressed = first.getSuppressed();
        assertEquals(CallFailures.MAX_ATTACHED + 1, suppressed.length);
        for (int i = 0; i < CallFailures.MAX_ATTACHED; i++) {
            assertEquals("task " + (i + 1), suppressed[i].getMessage(), "in argument order");
        }
        assertTrue(suppressed[CallFailures.MAX_ATTACHED].getMessage().startsWith(
            (99 - CallFailures.MAX_ATTACHED) + " more tasks"), suppressed[CallFailures.MAX_ATTACHED].getMessage());
    }
}
