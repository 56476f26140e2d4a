package dev.sharray;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Actions other components run at a normal exit before sharray's exit hook releases this process's arrays (see
 * {@link SharedArrays#runAtExit}): a pool ends its workers there, so that the arrays they hold are released by the
 * time the hook looks, and no worker outlives the JVM.
 */
final class ExitActions {
    private static final Set<Runnable> ACTIONS = new LinkedHashSet<>();

    private ExitActions() {
    }

    /** @param action to run at exit unless {@link #remove}d first */
    static void add(Runnable action) {
        Segments.installExitHook(); // outside this class's lock, as ExitFiles does
        synchronized (ExitActions.class) {
            ACTIONS.add(action);
        }
    }

    /** @param action no longer to run at exit */
    static synchronized void remove(Runnable action) {
        ACTIONS.remove(action);
    }

    /** At exit: runs each action once, in the order added; one's failure does not stop the others. */
    static void runAll() {
        final List<Runnable> actions;
        synchronized (ExitActions.class) {
            actions = new ArrayList<>(ACTIONS);
            ACTIONS.clear();
        }
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException | Error e) {
                // best effort at exit: the arrays are still released below, and the reaper finishes the rest. Any Error
                // too (an action's AssertionError): it ended the hook here, leaving this process's arrays and folder
            }
        }
    }
}
