/**
 * What the model may see and which columns nobody sees unmasked: the data policy ({@link dev.sqlagent.policy.ModelSees},
 * {@code SQLAGENT_MODEL_SEES}), the notes file's sensitive columns resolved against the catalogue
 * ({@link dev.sqlagent.policy.SensitiveColumns}), how their values are masked ({@link dev.sqlagent.policy.Mask},
 * {@link dev.sqlagent.policy.ResultMasking}) and the columns that look sensitive but are not marked
 * ({@link dev.sqlagent.policy.SensitiveSuggestions}). The whole policy is described in {@code docs/data-policy.md}.
 */
package dev.sqlagent.policy;
