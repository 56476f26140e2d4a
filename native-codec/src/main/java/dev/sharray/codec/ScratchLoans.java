package dev.sharray.codec;

/**
 * The calls during which a virtual thread holds borrowed {@link ScratchSlot} scratch: each public codec operation is
 * bracketed by {@link #begin()} and {@link #end()}, and the outermost end gives everything borrowed back. On platform
 * threads (and JDKs without virtual threads) both do nothing.
 */
final class ScratchLoans {
    private static final ThreadLocal<Loan> LOANS = new ThreadLocal<>();

    private ScratchLoans() {
    }

    static void begin() {
        if (VirtualThreads.isCurrent()) {
            Loan loan = LOANS.get();
            if (loan == null) {
                loan = new Loan();
                LOANS.set(loan);
            }
            loan.depth++;
        }
    }

    static void end() {
        if (VirtualThreads.isCurrent()) {
            final Loan loan = LOANS.get();
            if (loan != null && --loan.depth == 0) {
                LOANS.remove();
                loan.giveBackAll();
            }
        }
    }

    /** Notes that the current thread borrowed from {@code slot}, to give it back at the end of its call. */
    static void borrowed(ScratchSlot<?> slot) {
        final Loan loan = LOANS.get();
        if (loan != null) {
            loan.add(slot);
        }
    }

    /** One virtual thread's call: how deeply nested, and the kinds of scratch it borrowed (a few at most). */
    private static final class Loan {
        private final ScratchSlot<?>[] slots = new ScratchSlot<?>[4];
        private int count;
        private int depth;

        void add(ScratchSlot<?> slot) {
            if (count == slots.length) {
                return; // more kinds than exist today: the thread keeps that one, as a platform thread would
            }
            slots[count++] = slot;
        }

        void giveBackAll() {
            for (int i = 0; i < count; i++) {
                slots[i].giveBack();
            }
        }
    }
}
