package dev.sharray.pool;

import dev.sharray.reducers.ArrayOpening;
import dev.sharray.reducers.ArraySharing;

/**
 * The worker's bookkeeping of shared arrays: those a task's argument opened (released when the task
 * ends) and those its result refers to (held until the parent has opened them and says RELEASE).
 */
final class TaskArrays {

    void beginTask() {
    }

    ArrayOpening opening() {
        return null;
    }

    ArraySharing resultSharing() {
        return null;
    }

    boolean resultHoldsArrays() {
        return false;
    }

    void abandonResult() {
    }

    void endTask(long taskId, boolean holdResult) {
    }

    void releaseResult(long taskId) {
    }

    void releaseAll() {
    }
}
