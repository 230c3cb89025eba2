// A type error that only a type checker finds: transpiling alone would run it.
export const port: number = "8080";
