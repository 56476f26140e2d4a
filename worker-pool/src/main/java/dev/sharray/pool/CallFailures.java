package dev.sharray.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The failures of one map call's tasks, gathered in argument order into the one exception the call throws: the
 * first, with the later ones suppressed into it. A later failure alike one already kept (same class and message, and
 * so their causes: every chunk of a call refused the same way, say) is counted, not attached, and so is any past the first
 * {@link #MAX_ATTACHED}: a 10,000-task call that failed throughout printed 10,000 stack traces with their causes.
 * The count goes in a last suppressed {@link OmittedTaskFailures}.
 */
final class CallFailures {
    /** Distinct later failures attached to the first. */
    static final int MAX_ATTACHED = 16;

    private final List<RuntimeException> kept = new ArrayList<>(2);
    private long omitted;

    /** Adds a task's failure (the tasks of one message may share one exception: counted as alike). */
    void add(RuntimeException failure) {
        if (kept.isEmpty()) {
            kept.add(failure);
        } else if (kept.size() <= MAX_ATTACHED && !alikeOneKept(failure)) {
            kept.get(0).addSuppressed(failure);
            kept.add(failure);
        } else {
            omitted++;
        }
    }

    private boolean alikeOneKept(RuntimeException failure) {
        for (RuntimeException k : kept) {
            if (k == failure || alike(k, failure)) {
                return true;
            }
        }
        return false;
    }

    /** Same class and message, and so their causes ("task failed" wrapping distinct root causes is not alike). */
    private static boolean alike(Throwable a, Throwable b) {
        for (int depth = 0; depth < 16; depth++) {
            if (a == b) {
                return true;
            }
            if (a == null || b == null || a.getClass() != b.getClass() || !Objects.equals(a.getMessage(), b.getMessage())) {
                return false;
            }
            a = a.getCause();
            b = b.getCause();
        }
        return true; // alike this deep: a longer chain of the same is alike too
    }

    /** @return the exception the call throws, or null when no task failed */
    RuntimeException first() {
        if (kept.isEmpty()) {
            return null;
        }
        final RuntimeException first = kept.get(0);
        if (omitted > 0) {
            first.addSuppressed(new OmittedTaskFailures(omitted));
            omitted = 0;
        }
        return first;
    }

    /** Says how many later failures of a map call are not attached, in place of their stack traces. */
    static final class OmittedTaskFailures extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OmittedTaskFailures(long count) {
            super(count + " more " + (count == 1 ? "task" : "tasks") + " of this call failed: each alike a failure"
                + " above (same type and message, and so their causes), or past the first " + (MAX_ATTACHED + 1) + " failures (submit"
                + " gives each task its own)", null, false, false);
        }
    }
}
