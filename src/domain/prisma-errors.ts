/** Prisma's known request error codes that the domain turns into contract errors. */
type KnownCode = 'P2002' | 'P2003' | 'P2025';

export function isPrismaError(error: unknown, code: KnownCode): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
