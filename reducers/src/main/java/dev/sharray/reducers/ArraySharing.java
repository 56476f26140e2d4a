package dev.sharray.reducers;

import dev.sharray.Descriptor;
import dev.sharray.SharedArray;

/**
 * The sending side's policy for arrays: shared arrays cross as descriptors with a reference held
 * while in flight, and primitive or heap arrays above {@link #maxBytes()} are copied once into a
 * shared array instead of being written inline. {@link SharingSession} is the standard implementation.
 */
public interface ArraySharing {

    /** @return primitive and heap arrays larger than this many bytes are shared, smaller ones go inline */
    long maxBytes();

    /**
     * Pins {@code array} until the message it is written into has been dealt with.
     *
     * @param array a live shared array (any view)
     * @return the descriptor to send
     */
    Descriptor share(SharedArray array);

    /**
     * Copies a large {@code double[]}, {@code float[]}, {@code long[]}, {@code int[]}, {@code short[]},
     * {@code byte[]} or {@code HeapArray} into shared memory owned by this policy, at most once per
     * array instance.
     *
     * @param array the heap array
     * @return the descriptor of the shared copy
     */
    Descriptor shareCopy(Object array);
}
