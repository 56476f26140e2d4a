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
        g.answered(1);
        assertEquals(1000 / (8 * 4), g.size(1000, 4));
        assertEquals(1000 / 8, g.size(1000, 0), "no worker counts as one");
        assertEquals(1, g.size(3, 4), "at least one");
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
