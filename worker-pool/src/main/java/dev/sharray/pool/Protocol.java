package dev.sharray.pool;

/**
 * Message kinds and layouts between parent and worker. Every message starts with its kind byte;
 * numbers are little-endian.
 *
 * <pre>
 * parent → worker
 *   TASK     kind, taskId:long, fnMode:byte, fnId:int, [fnLength:int fnBytes] (INLINE, DEFINE, MAP_DEFINE),
 *            argument value
 *   TASKS    kind, count:int (at least 2), fnMode:byte (not INLINE), fnId:int, [fnLength:int fnBytes],
 *            then count times: taskId:long, argLength:int, argument value; run in order, one RESULT each;
 *            only the last RESULT rings a sleeping parent (see {@link RingFile})
 *   TIMED_TASKS  as TASKS, for tasks with deadlines: every RESULT rings, as the parent's read of an answer
 *            starts the next task's deadline
 *   RELEASE  kind, taskId:long      the parent has opened the arrays of that task's result
 *   STOP     kind                   finish and exit
 *   FORGET   kind, mapId:long       that map call is over: drop its cached function
 * worker → parent
 *   HELLO    kind, pid:long, maxHeap:long    mapped and ready; maxHeap is its Runtime.maxMemory()
 *   RESULT   kind, taskId:long, status:byte, flags:byte (HOLDS_ARRAYS, RETIRING), value (OK) or error (ERROR)
 * </pre>
 */
final class Protocol {
    static final byte TASK = 1;
    static final byte RELEASE = 2;
    static final byte STOP = 3;
    static final byte FORGET = 4;
    static final byte TASKS = 5;
    static final byte TIMED_TASKS = 6;
    static final byte HELLO = 10;
    static final int HELLO_LENGTH = 17;
    static final byte RESULT = 11;

    /** The function's bytes follow; the worker decodes them for this task only. */
    static final byte FN_INLINE = 0;
    /** The function's bytes follow; the worker caches the decoded function under fnId. */
    static final byte FN_DEFINE = 1;
    /** The worker already has fnId; no bytes follow. */
    static final byte FN_REF = 2;
    /**
     * The function of a map call (fnId is the call's id): its bytes follow; the worker caches the decoded
     * function in its small {@link FunctionCache} until FORGET or eviction.
     */
    static final byte FN_MAP_DEFINE = 3;
    /** The worker has the map call's function cached (the parent mirrors its cache); no bytes follow. */
    static final byte FN_MAP_REF = 4;

    static final byte OK = 0;
    static final byte ERROR = 1;

    /** RESULT flag: the worker holds arrays of the result until the parent's RELEASE. */
    static final byte HOLDS_ARRAYS = 1;
    /**
     * RESULT flag: the worker reads nothing more and exits after this answer (the task ran it out of heap); tasks
     * sent to it after this one never start.
     */
    static final byte RETIRING = 2;

    /** Offset of the argument / fn section after kind and taskId. */
    static final int TASK_HEADER = 1 + 8;
    static final int RESULT_HEADER = 1 + 8 + 1 + 1;
    /** Offset of the fn section of a TASKS message, after kind and count. */
    static final int TASKS_HEADER = 1 + 4;
    /** Per task of a TASKS message, before its argument: taskId and argLength. */
    static final int GROUPED_TASK_HEADER = 8 + 4;

    private Protocol() {
    }
}
