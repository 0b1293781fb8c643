package dev.sqlagent.bus;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A message field that is left out of the JSON when it is null (an optional field most messages do not
 * carry), instead of being written as {@code null}; see {@link RecordJson}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface OmitWhenNull {}
