package dev.sharray.reducers;

/**
 * The sending side's policy for arrays: shared arrays cross as descriptors with a reference held
 * while in flight, and primitive or heap arrays above {@link #maxBytes()} are copied once into a
 * shared array instead of being written inline. {@link SharingSession} is the standard implementation.
 */
public interface ArraySharing {

    /** @return primitive and heap arrays larger than this many bytes are shared, smaller ones go inline */
    long maxBytes();
}
