/** An annotation as the service returns it. Unset keys are absent, never "" or null. */
export interface Annotation {
  id: string;
  datasets: string[];
  type: string;
  time: string;
  endTime?: string;
  title?: string;
  description?: string;
  url?: string;
}

/** The body of a create call. `time` defaults to now on the service. */
export interface NewAnnotation {
  datasets: string[];
  type: string;
  time?: string;
  endTime?: string;
  title?: string;
  description?: string;
  url?: string;
}

/** A partial update: only the keys present change. */
export type AnnotationPatch = Partial<Omit<NewAnnotation, never>>;

/** Filters of the list call; every one is optional. */
export interface AnnotationFilter {
  datasets?: string[];
  start?: string;
  end?: string;
}
