package dev.sharray.pool;

/**
 * How many queued tasks of one {@code map} call a worker gets in one message. A task alone costs a round
 * trip through the parent (its result must arrive before the worker's next task is sent), several
 * microseconds on a small machine: for tiny tasks that is most of the cost, as joblib's auto-batching
 * found for Python. A group is sized from the call's measured time per task so it runs for about
 * {@link #TARGET_NANOS}, and to at most an eighth of a worker's share of the tasks left, so the call's end
 * stays balanced, unless that would run shorter than {@link #MIN_GROUP_NANOS}. Tasks that take longer than
 * the target, and all tasks until the first answer, go alone.
 * The time per task is measured per message, from its sending to its last answer: the parent's own
 * delays in seeing answers (a descheduled thread, a burst of results read at once) are spread over the
 * group instead of inflating single tasks. The call's task time is the median of its last
 * {@link #SAMPLES} messages: the errors are one-sided (a message never looks faster than its tasks ran),
 * and the large ones come alone, such as a cold worker's first task (tens of milliseconds for a
 * microsecond task) or the parent descheduled while a task ran alone, so a median ignores them where a
 * moving mean kept tiny tasks one per message for dozens of answers after each. The worker runs a
 * group's tasks one after the other and answers each on its own.
 */
final class TaskGrouping {
    /**
     * About how long a group runs: long enough to amortise a round trip and the parent's delays in seeing
     * answers (up to a scheduler slice on a busy machine), short enough to keep the call's end balanced.
     */
    static final long TARGET_NANOS = 1_000_000;
    /**
     * A group may run this long even past an eighth of a worker's share: the imbalance it can leave at the
     * call's end is then about what one more round trip would cost (a worker spins ~50 us before it parks),
     * where a call of a few hundred tiny tasks used to end in dozens of one-task messages.
     */
    static final long MIN_GROUP_NANOS = 50_000;
    /**
     * A group is sent behind a worker's running group only if expected to run this long: long enough that the
     * parent, which then sleeps until a group ends (see {@code ResultThread}), wakes and sends the next one before
     * the worker runs out; and that the extra message per group pays. Shorter groups (tasks of a microsecond or
     * so, {@link #MAX_TASKS} to a message) are sent when a worker answers its last task, as before.
     */
    static final long BEHIND_MIN_NANOS = 500_000;
    /** The most tasks in one message. */
    static final int MAX_TASKS = 256;
    /** Tasks with a larger encoded argument go alone (big arguments are not what grouping is for). */
    static final int MAX_ARG_BYTES = 4096;
    /** The most argument bytes in one message, so a group fits one ring record. */
    static final int MAX_GROUP_BYTES = 64 * 1024;

    /**
     * Messages whose times per task the estimate takes the median of: odd, and large enough that two
     * outliers among them (each of a pool's two workers starting cold) change nothing, small enough that
     * tasks which really grew longer are seen after three messages.
     */
    static final int SAMPLES = 5;

    /** Median of the call's last {@link #SAMPLES} times per task in nanoseconds, 0 before the first answer. */
    private volatile long taskNanos;
    /** The last {@link #SAMPLES} times per task, a ring written under the pump lock (one writer). */
    private final long[] recent = new long[SAMPLES];
    /** Scratch for the median, so an answer allocates nothing. */
    private final long[] sorted = new long[SAMPLES];
    /** Answers so far (the ring's next slot is this modulo {@link #SAMPLES}). */
    private long answers;
    /** Whether {@link #SAMPLES} messages have been answered, so none of the estimate's samples is missing. */
    private volatile boolean fullSample;
    /** The same function's task time in its previous call, 0 when unknown. */
    private final long priorTaskNanos;
    /** Test hook: tasks per message whatever the measured time, 0 in use (sizes from the measured time). */
    private final int fixedSize;

    /** @param priorTaskNanos the function's task time in its previous call, 0 when unknown */
    TaskGrouping(long priorTaskNanos) {
        this(priorTaskNanos, 0);
    }

    /**
     * @param priorTaskNanos the function's task time in its previous call, 0 when unknown
     * @param fixedSize      0 in use; for tests, 2 to {@link #MAX_TASKS}: every message of the call carries that
     *                       many tasks (fewer when fewer are queued), from its first dispatch, as if its tasks were
     *                       measured tiny, since measured times on a busy machine decide nothing a test can rely on
     */
    TaskGrouping(long priorTaskNanos, int fixedSize) {
        this.priorTaskNanos = priorTaskNanos;
        this.fixedSize = checkedFixedSize(fixedSize);
    }

    /**
     * @return {@code fixedSize}, checked as for {@link #TaskGrouping(long, int)}
     * @throws IllegalArgumentException when it is neither 0 nor 2 to {@link #MAX_TASKS}
     */
    static int checkedFixedSize(int fixedSize) {
        if (fixedSize != 0 && (fixedSize < 2 || fixedSize > MAX_TASKS)) {
            throw new IllegalArgumentException("fixed group size must be 0 or 2 to " + MAX_TASKS + ", was " + fixedSize);
        }
        return fixedSize;
    }

    /** @return the call's task time in nanoseconds so far (see the class comment), 0 before its first answer */
    long taskNanos() {
        return taskNanos;
    }

    /**
     * A message of the call was answered in full (pump lock held: one writer).
     *
     * @param nanos its time from sending to its last answer, divided by its task count
     */
    void answered(long nanos) {
        recent[(int) (answers++ % SAMPLES)] = Math.max(1, nanos);
        final int n = (int) Math.min(answers, SAMPLES);
        System.arraycopy(recent, 0, sorted, 0, n);
        for (int i = 1; i < n; i++) { // insertion sort: at most five values
            final long v = sorted[i];
            int j = i - 1;
            while (j >= 0 && sorted[j] > v) {
                sorted[j + 1] = sorted[j];
                j--;
            }
            sorted[j + 1] = v;
        }
        // of an even count the lower middle: of a cold worker's first answer and a warm one's, the warm one
        taskNanos = sorted[(n - 1) / 2];
        if (n == SAMPLES && !fullSample) {
            fullSample = true;
        }
    }

    /**
     * @return whether the call's tasks each run longer than {@link #TARGET_NANOS}: as measured so far, or before
     *         its first answer as the same function's tasks did in its previous call, so a loop of calls
     *         queues tasks behind running ones from its first dispatch. (Group sizes never use that prior:
     *         a group of long tasks sent on a stale guess would unbalance the call.)
     */
    boolean tasksOutlastTarget() {
        if (fixedSize != 0) {
            return false;
        }
        final long m = taskNanos;
        return (m != 0 ? m : priorTaskNanos) >= TARGET_NANOS;
    }

    /**
     * @param tasks how many tasks of the call
     * @return whether they are expected to run at least {@link #BEHIND_MIN_NANOS} in all, by the time per task
     *         measured over the call's last {@link #SAMPLES} messages; false before that many: a call's first
     *         messages carry one task each, and their times are mostly the round trip, not the task's (a no-op
     *         measured that way looks 50 times longer than it runs)
     */
    boolean outlastBehindMinimum(int tasks) {
        return fullSample && (long) tasks * taskNanos >= BEHIND_MIN_NANOS;
    }

    /**
     * @param remaining the call's tasks not yet done
     * @param workers   the pool's workers
     * @return how many tasks the next message should carry, at least 1
     */
    int size(int remaining, int workers) {
        if (fixedSize != 0) {
            return fixedSize;
        }
        final long m = taskNanos;
        if (m == 0) {
            return 1;
        }
        final long byTime = TARGET_NANOS / m;
        final long byBalance = Math.max(remaining / (8L * Math.max(1, workers)), MIN_GROUP_NANOS / m);
        return (int) Math.max(1, Math.min(MAX_TASKS, Math.min(byTime, byBalance)));
    }
}
