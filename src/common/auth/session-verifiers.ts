import { Injectable } from '@nestjs/common';
import { SessionVerifier, UserPrincipal } from './principal';

/**
 * Where the users module plugs in site-user sessions, so the auth layer does not depend on it.
 * With none registered, a bearer token that is not an API key is simply invalid.
 */
@Injectable()
export class SessionVerifiers {
  private readonly verifiers: SessionVerifier[] = [];

  register(verifier: SessionVerifier): void {
    this.verifiers.push(verifier);
  }

  async verify(token: string): Promise<UserPrincipal | null> {
    for (const verify of this.verifiers) {
      const principal = await verify(token);
      if (principal) return principal;
    }
    return null;
  }
}
