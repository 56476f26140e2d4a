package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How many tasks go per message: bounded by the time target, by balance across workers and by MAX_TASKS. */
class TaskGroupingSizeTest {
    @Test
    void oneTaskUntilATimeIsKnown() {
        assertEquals(1, new TaskGrouping(0).size(1_000_000, 2));
    }

    @Test
    void neverMoreThanMaxTasksPerMessage() {
        final TaskGrouping g = new TaskGrouping(0);
        g.answered(1); // 1 ns a task: the time target alone would allow a million
        assertEquals(TaskGrouping.MAX_TASKS, g.size(Integer.MAX_VALUE, 1));
    }

    @Test
    void eachWorkerGetsAboutAnEighthOfItsShare() {
        final TaskGrouping g = new TaskGrouping(0);
        g.answered(10_000); // 10 us a task: 100 fit the time target
        assertEquals(1000 / (8 * 4), g.size(1000, 4));
        assertEquals(600 / 8, g.size(600, 0), "no worker counts as one");
    }

    /** A group shorter than MIN_GROUP_NANOS saves less imbalance at the call's end than its round trip costs. */
    @Test
    void aGroupRunsAtLeastTheMinimumGroupTime() {
        final TaskGrouping g = new TaskGrouping(0);
        g.answered(10_000);
        assertEquals(TaskGrouping.MIN_GROUP_NANOS / 10_000, g.size(3, 4), "more than are left: takes what is queued");
        final TaskGrouping tiny = new TaskGrouping(0);
        tiny.answered(1_000);
        assertEquals(TaskGrouping.MIN_GROUP_NANOS / 1_000, tiny.size(200, 2), "not 200 / 16");
        final TaskGrouping longer = new TaskGrouping(0);
        longer.answered(TaskGrouping.MIN_GROUP_NANOS);
        assertEquals(1, longer.size(15, 2), "near the end, tasks of the minimum group time go alone");
    }

    @Test
    void tasksOfExactlyTheTargetOutlastIt() {
        assertTrue(new TaskGrouping(TaskGrouping.TARGET_NANOS).tasksOutlastTarget());
        assertFalse(new TaskGrouping(TaskGrouping.TARGET_NANOS - 1).tasksOutlastTarget());
        final TaskGrouping g = new TaskGrouping(0);
        g.answered(TaskGrouping.TARGET_NANOS);
        assertTrue(g.tasksOutlastTarget());
        assertEquals(1, g.size(Integer.MAX_VALUE, 1));
    }

    /** A cold worker's first task, or the parent descheduled while one task ran alone, looks ~10,000 times too long. */
    @Test
    void twoOutliersAmongTheLastFiveAnswersChangeNothing() {
        final TaskGrouping g = new TaskGrouping(0);
        g.answered(100_000_000); // each of two cold workers' first task: 100 ms
        g.answered(80_000_000);
        assertEquals(1, g.size(1_000_000, 2), "two slow answers alone: still one task per message");
        g.answered(5_000);
        assertEquals(80_000_000, g.taskNanos(), "two of three answers were slow");
        g.answered(5_000);
        assertEquals(5_000, g.taskNanos(), "of four answers, the lower middle");
        assertEquals(TaskGrouping.TARGET_NANOS / 5_000, g.size(1_000_000, 2));
        g.answered(5_000);
        g.answered(40_000_000); // the parent descheduled: one answer seen 40 ms late
        g.answered(5_000);
        g.answered(30_000_000);
        assertEquals(5_000, g.taskNanos(), "two slow among the last five");
        assertFalse(g.tasksOutlastTarget());
    }

    /** Tasks that really grew longer are seen once they are most of the last five answers. */
    @Test
    void tasksThatGrewLongerAreSeenAfterThreeAnswers() {
        final TaskGrouping g = new TaskGrouping(0);
        for (int i = 0; i < 10; i++) {
            g.answered(5_000);
        }
        g.answered(3 * TaskGrouping.TARGET_NANOS);
        g.answered(3 * TaskGrouping.TARGET_NANOS);
        assertFalse(g.tasksOutlastTarget(), "two long answers may be outliers");
        g.answered(3 * TaskGrouping.TARGET_NANOS);
        assertEquals(3 * TaskGrouping.TARGET_NANOS, g.taskNanos());
        assertTrue(g.tasksOutlastTarget());
        assertEquals(1, g.size(1_000_000, 2));
    }

    /**
     * A group goes behind a running one only once five messages are measured: a call's first messages carry a task
     * each and measure mostly the round trip (here 20 us for a no-op of 0.2 us, which 50 to a group would pass the
     * minimum); the five then say 0.2 us, and 256 such tasks run too briefly for a sleeping parent to keep up.
     */
    @Test
    void aGroupGoesBehindARunningOneOnlyWhenFiveMessagesSayItRunsLongEnough() {
        final TaskGrouping g = new TaskGrouping(0);
        g.answered(20_000);
        g.answered(20_000);
        assertEquals(50, g.size(100_000, 2));
        assertFalse(g.outlastBehindMinimum(50), "measured from two lone tasks' round trips");
        for (int i = 0; i < 3; i++) {
            g.answered(200);
        }
        assertEquals(200, g.taskNanos());
        assertFalse(g.outlastBehindMinimum(TaskGrouping.MAX_TASKS), "no-ops: 51 us a group");
        final TaskGrouping five = new TaskGrouping(0);
        for (int i = 0; i < TaskGrouping.SAMPLES; i++) {
            assertFalse(five.outlastBehindMinimum(200), "after " + i + " answers");
            five.answered(5_000);
        }
        assertTrue(five.outlastBehindMinimum(200), "200 tasks of 5 us: 1 ms");
        assertTrue(five.outlastBehindMinimum((int) (TaskGrouping.BEHIND_MIN_NANOS / 5_000)), "exactly the minimum");
        assertFalse(five.outlastBehindMinimum((int) (TaskGrouping.BEHIND_MIN_NANOS / 5_000) - 1));
    }

    /** The test hook ProcessPool.tasksPerMessage: a fixed size whatever was measured, never a queue-behind. */
    @Test
    void aFixedSizeHoldsWhateverWasMeasured() {
        final TaskGrouping g = new TaskGrouping(2 * TaskGrouping.TARGET_NANOS, 5);
        assertEquals(5, g.size(1_000_000, 2), "before the first answer");
        assertFalse(g.tasksOutlastTarget(), "a long prior does not queue tasks behind running ones");
        g.answered(10 * TaskGrouping.TARGET_NANOS);
        assertEquals(5, g.size(1_000_000, 2), "after a long answer");
        assertFalse(g.tasksOutlastTarget());
        assertEquals(0, TaskGrouping.checkedFixedSize(0));
        assertThrows(IllegalArgumentException.class, () -> TaskGrouping.checkedFixedSize(1));
        assertThrows(IllegalArgumentException.class, () -> TaskGrouping.checkedFixedSize(TaskGrouping.MAX_TASKS + 1));
    }
}
