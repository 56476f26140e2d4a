package dev.sharray;

/**
 * A process named in one 64-bit word of a reference file, so that taking a role there (deleting the array,
 * reclaiming a dead holder's slot) is one CAS that already says who took it. A process killed right after such
 * a CAS can then be judged dead and its role taken over; a role taken with an anonymous mark and named by later
 * stores stayed taken for ever when its taker died between the two.
 *
 * <p>Linux pids are below 2^22 ({@code PID_MAX_LIMIT}); the rest of the word holds the low bits of the process's
 * start time ({@link ProcessIdentity}), which tell a live process from a later one that reuses its pid:
 * <pre>
 *   identity (positive):        start bits 0..40 &lt;&lt; 22 | pid
 *   reclaim mark (negative): -( start bits 0..18 of the reclaimer &lt;&lt; 44 | reclaimer pid &lt;&lt; 22 | holder pid )
 * </pre>
 * A reused pid whose start time agrees in those low bits is judged alive: a role then stays taken, as before,
 * and is never taken over under a live taker.
 */
final class ProcessWords {
    /** Bits of a pid. */
    static final int PID_BITS = 22;
    /** Largest pid a word holds. */
    static final long MAX_PID = (1L << PID_BITS) - 1;
    private static final long IDENTITY_START_MASK = (1L << (63 - PID_BITS)) - 1;
    private static final long MARK_START_MASK = (1L << (63 - 2 * PID_BITS)) - 1;

    private ProcessWords() {
    }

    /** @return the identity word of the process ({@code pid}, {@code start}) */
    static long identity(long pid, long start) {
        return (start & IDENTITY_START_MASK) << PID_BITS | checkedPid(pid);
    }

    /** @return the pid an identity word names (0 for the word 0: nobody) */
    static long pidOf(long identity) {
        return identity & MAX_PID;
    }

    /** @return whether the process an identity word names still runs (false for 0: nobody) */
    static boolean isAlive(long identity) {
        return identity > 0 && ProcessIdentity.isAlive(pidOf(identity), identity >>> PID_BITS, IDENTITY_START_MASK);
    }

    /** @return the mark this process writes over the pid of {@code holderPid}'s slot while it reclaims that slot */
    static long reclaimMark(long holderPid) {
        return reclaimMark(ProcessIdentity.PID, ProcessIdentity.START, holderPid);
    }

    /** @return the mark the process ({@code reclaimerPid}, {@code reclaimerStart}) writes over {@code holderPid} */
    static long reclaimMark(long reclaimerPid, long reclaimerStart, long holderPid) {
        return -((reclaimerStart & MARK_START_MASK) << (2 * PID_BITS) | checkedPid(reclaimerPid) << PID_BITS
            | checkedPid(holderPid));
    }

    /** @return whether a slot's pid word is a reclaim mark (negative, naming a reclaimer and a holder) */
    static boolean isReclaimMark(long word) {
        return word < 0 && word != Long.MIN_VALUE && reclaimerOf(word) != 0 && holderOf(word) != 0;
    }

    /** @return the pid of the holder whose slot a reclaim mark holds */
    static long holderOf(long mark) {
        return -mark & MAX_PID;
    }

    /** @return the pid of the process reclaiming the slot */
    static long reclaimerOf(long mark) {
        return -mark >>> PID_BITS & MAX_PID;
    }

    /** @return whether the process that wrote a reclaim mark still runs */
    static boolean isReclaimerAlive(long mark) {
        return ProcessIdentity.isAlive(reclaimerOf(mark), -mark >>> (2 * PID_BITS), MARK_START_MASK);
    }

    private static long checkedPid(long pid) {
        if (pid <= 0 || pid > MAX_PID) {
            throw new IllegalStateException("pid " + pid + " does not fit the " + PID_BITS + " bits a reference file"
                + " gives it (Linux pids are below 2^22)");
        }
        return pid;
    }
}
