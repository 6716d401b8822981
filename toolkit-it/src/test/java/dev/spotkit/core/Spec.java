package dev.spotkit.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test that proves a numbered verification requirement of {@code shared/spec/REQUIREMENTS.md}, e.g.
 * {@code @Spec("MEM-17")}. Repeatable; audited by {@code shared/tools/spec_audit.py}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
@Repeatable(Spec.List.class)
public @interface Spec {
  /**
   * The requirement id.
   *
   * @return e.g. "MEM-17".
   */
  String value();

  /** Container of repeated {@link Spec} tags. */
  @Documented
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.METHOD, ElementType.TYPE})
  @interface List {
    /**
     * The tags.
     *
     * @return the tags.
     */
    Spec[] value();
  }
}
