import { SignInScreen } from './sign-in.tsx';

export default function RegisterPage() {
  return <SignInScreen intent="register" />;
}
