package dev.sharray.pool;

import java.util.Arrays;
import java.util.Deque;
import java.util.function.IntPredicate;

/**
 * Which worker ran each argument position of the pool's latest map calls whose tasks go one per message,
 * so the next such call sends position {@code i} to the same worker: a job of several steps over the same
 * chunks (fill, scale, reduce, encode) then has each worker touch the same memory step after step. A
 * process's first access to a page of a mapping costs ~5-13 us on the shadow-paging VMs these pools were
 * measured on, and its caches and TLB hold what it touched last on any machine.
 *
 * <p>Only a preference: a worker with none of its own positions queued takes one no worker is known for,
 * or else the queue's head, so no worker idles while tasks wait. Not for the tasks of a call measured to run
 * under {@link TaskGrouping#TARGET_NANOS}, which travel in groups in queue order (a scan of the queue costs
 * what a tiny task does), and only among the tasks of the head's call. Hints are read and written without
 * locks; a lost one costs locality, never a task.
 */
final class TaskPlacement {
    /** Positions past this are not remembered. */
    static final int MAX_POSITIONS = 4096;
    /** Queued tasks looked at for one choice. */
    private static final int SCAN = 256;

    /** Worker id by argument position, 0 when unknown. Replaced whole when it grows. */
    private volatile int[] workerByPosition = new int[0];

    /**
     * @return whether {@code t}'s call places its tasks by position: a map call whose tasks go one per message
     *         (a function holding arrays is sent with each task), are measured long, or are not measured yet
     *         (the first tasks of a call go one per message too)
     */
    static boolean applies(Task t) {
        final TaskGrouping grouping = t.batch.grouping;
        return t.position >= 0 && (grouping == null || grouping.taskNanos() == 0 || grouping.tasksOutlastTarget());
    }

    /**
     * Takes the task to send to {@code worker} from {@code pending}: the first of the head's call whose
     * position that worker ran last, else the first no worker is known for, else the head.
     *
     * @param worker the worker's id
     * @param live whether a worker id belongs to a current worker: a position last run by a worker that has
     *             since died is no one's
     * @return the task, or {@code null} when the queue is empty; it may be one its caller dropped (see
     *         {@link TaskQueue}), which the caller of this skips
     */
    Task take(Deque<Task> pending, int worker, IntPredicate live) {
        final Task head = pending.peek();
        if (head == null || head.dropped() || !applies(head)) {
            return pending.poll(); // a dropped head is skipped by the caller, one poll each
        }
        final int[] table = workerByPosition;
        Task unowned = null;
        int scanned = 0;
        for (Task t : pending) {
            if (++scanned > SCAN) {
                break;
            }
            if (t.dropped()) {
                continue; // its caller dropped it: nobody's to run
            }
            if (t.batch != head.batch) {
                break;
            }
            final int owner = t.position < table.length ? table[t.position] : 0;
            if (owner == worker) {
                if (pending.removeFirstOccurrence(t)) {
                    return t;
                }
            } else if (unowned == null && (owner == 0 || !live.test(owner))) {
                unowned = t;
            }
        }
        if (unowned != null && pending.removeFirstOccurrence(unowned)) {
            return unowned;
        }
        return pending.poll();
    }

    /** Records that {@code worker} runs {@code t}, for the next call this placement {@link #applies} to. */
    void placed(Task t, int worker) {
        if (t.position < 0 || t.position >= MAX_POSITIONS || !applies(t)) {
            return;
        }
        int[] table = workerByPosition;
        if (t.position >= table.length) {
            table = Arrays.copyOf(table, Math.min(MAX_POSITIONS, Math.max(t.position + 1, 2 * table.length)));
            workerByPosition = table;
        }
        table[t.position] = worker;
    }

    /** @return the worker that ran position {@code position} last, 0 when unknown (for tests) */
    int workerFor(int position) {
        final int[] table = workerByPosition;
        return position < table.length ? table[position] : 0;
    }
}
